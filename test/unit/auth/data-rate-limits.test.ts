/**
 * The data API's rate-limit policy alone (auth/data-rate-limits.ts), on the in-memory limiter
 * with a fake clock: no promise when no limit applies or the memory limiter decides, reads and
 * writes apart, whom a request counts against, admins never counted. The HTTP behaviour is in
 * test/scenarios/data-rate-limits.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DataRateLimits } from '../../../src/auth/data-rate-limits.js';
import { buildMemoryRateLimiter } from '../../../src/auth/memory-rate-limiter.js';
import type { ProjectState } from '../../../src/projects/project-registry.js';
import { DEFAULT_SETTINGS, type DataRateLimitSettings } from '../../../src/projects/settings.js';
import type { Caller } from '../../../src/tables/caller.js';

const clock = { now: () => 1_000_000 };

function stateWith(limits: DataRateLimitSettings | null, id = 'p1'): ProjectState {
  return {
    project: { id } as ProjectState['project'],
    keys: [],
    settings: { ...DEFAULT_SETTINGS, data_rate_limits: limits },
    jwtSecret: 'x',
    jwtRotatedAt: '',
  };
}

const user = (id: string): Caller => ({ kind: 'user', user: { id }, sessionId: 's' });
const key = (keyId: string): Caller => ({ kind: 'public', keyId });

/** True when the request passes; false when it is refused with RATE_LIMITED (thrown at once or rejected). */
async function passes(check: () => Promise<void> | undefined): Promise<boolean> {
  try {
    await check();
    return true;
  } catch (error) {
    assert.equal((error as { code?: string }).code, 'RATE_LIMITED');
    return false;
  }
}

describe('DataRateLimits', () => {
  const build = (enabled = true) => new DataRateLimits(buildMemoryRateLimiter({ clock }), { enabled });

  it('no setting, no limit of that kind, an admin caller or RATE_LIMITS=off: undefined (no promise)', () => {
    const limits = build();
    assert.equal(limits.check(stateWith(null), 'read', key('k'), '1.2.3.4'), undefined);
    const readsOnly = stateWith({ reads_per_minute: 1, writes_per_minute: null, per: 'address' });
    assert.equal(limits.check(readsOnly, 'write', key('k'), '1.2.3.4'), undefined);
    assert.equal(limits.check(readsOnly, 'read', { kind: 'admin' }, '1.2.3.4'), undefined);
    assert.equal(build(false).check(readsOnly, 'read', key('k'), '1.2.3.4'), undefined);
  });

  it('per address: every caller from one address shares the count; reads and writes apart', async () => {
    const limits = build();
    const state = stateWith({ reads_per_minute: 2, writes_per_minute: 1, per: 'address' });
    assert.ok(await passes(() => limits.check(state, 'read', user('u1'), '10.0.0.1')));
    assert.ok(await passes(() => limits.check(state, 'read', key('k1'), '10.0.0.1')));
    assert.equal(await passes(() => limits.check(state, 'read', user('u2'), '10.0.0.1')), false);
    assert.ok(await passes(() => limits.check(state, 'read', user('u2'), '10.0.0.2')));
    assert.ok(await passes(() => limits.check(state, 'write', user('u1'), '10.0.0.1')));
    assert.equal(await passes(() => limits.check(state, 'write', user('u1'), '10.0.0.1')), false);
  });

  it('per caller: the user, else the key, else the address', async () => {
    const limits = build();
    const state = stateWith({ reads_per_minute: 1, writes_per_minute: null, per: 'caller' }, 'p2');
    assert.ok(await passes(() => limits.check(state, 'read', user('u1'), '10.0.0.1')));
    assert.equal(
      await passes(() => limits.check(state, 'read', user('u1'), '10.0.0.9')),
      false,
      'same user, new address',
    );
    assert.ok(await passes(() => limits.check(state, 'read', user('u2'), '10.0.0.1')));
    assert.ok(await passes(() => limits.check(state, 'read', key('k1'), '10.0.0.1')));
    assert.equal(
      await passes(() => limits.check(state, 'read', key('k1'), '10.0.0.2')),
      false,
      'same key, new address',
    );
    assert.ok(
      await passes(() => limits.check(state, 'read', { kind: 'public' }, '10.0.0.3')),
      'no key id: the address',
    );
    assert.equal(await passes(() => limits.check(state, 'read', { kind: 'public' }, '10.0.0.3')), false);
  });

  it('a refusal carries Retry-After', async () => {
    const limits = build();
    const state = stateWith({ reads_per_minute: 1, writes_per_minute: null, per: 'address' }, 'p3');
    // The memory limiter decides at once: an allowed request gets no promise, a refused one a throw.
    assert.equal(limits.check(state, 'read', key('k'), '10.0.0.1'), undefined);
    assert.throws(
      () => limits.check(state, 'read', key('k'), '10.0.0.1'),
      (error: { headers?: object }) => {
        assert.deepEqual(error.headers, { 'retry-after': '60' });
        return true;
      },
    );
  });
});
