/** Identities ending by time or by a rotated credential (src/realtime/identity-expiry.ts), on a hand-moved clock. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProjectState } from '../../../src/projects/project-registry.js';
import { IdentityExpiry, type ExpiringClient } from '../../../src/realtime/identity-expiry.js';
import type { BoundIdentity } from '../../../src/realtime/realtime-client.js';
import { ManualClock } from '../../helpers/memory-log.js';

/** A client that records what happened to it. */
function client(identity: Partial<BoundIdentity> | undefined): ExpiringClient & { expired: number; closed: boolean } {
  return {
    identity: identity && ({ expiresAtMs: undefined, stillValid: () => true, ...identity } as BoundIdentity),
    expired: 0,
    closed: false,
    expire() {
      this.expired++;
    },
    close() {
      this.closed = true;
    },
  };
}

const state = (keys: { expires_at: string | null }[] = []) => ({ keys }) as unknown as ProjectState;

describe('identity expiry', () => {
  it('a token ends at its expiry on the poll, not before', () => {
    const clock = new ManualClock();
    const expiry = new IdentityExpiry(clock);
    const user = client({ expiresAtMs: clock.now() + 1_000 });
    const current = state();
    expiry.check([user], current, true);
    clock.advance(999);
    expiry.check([user], current, true);
    assert.equal(user.expired, 0);
    clock.advance(1);
    expiry.check([user], current, false);
    assert.equal(user.expired, 0, 'a batch of events with the same state checks nothing');
    expiry.check([user], current, true);
    assert.equal(user.expired, 1, 'the poll ends it');
  });

  it('a changed project state ends the identities it no longer accepts, and only those', () => {
    const expiry = new IdentityExpiry(new ManualClock());
    const rotated = state();
    const stale = client({ stillValid: (s) => s !== rotated });
    const fine = client({});
    const anonymous = client(undefined);
    expiry.check([stale, fine, anonymous], state(), false);
    assert.equal(stale.expired, 0);
    expiry.check([stale, fine, anonymous], rotated, false);
    assert.deepEqual([stale.expired, fine.expired, anonymous.expired], [1, 0, 0]);
  });

  it('while a key is in its grace period, the poll checks credentials again though the state is the same', () => {
    const expiry = new IdentityExpiry(new ManualClock());
    let valid = true;
    const keyUser = client({ stillValid: () => valid });
    const grace = state([{ expires_at: '2030-01-01T00:00:00.000Z' }]);
    expiry.check([keyUser], grace, false);
    valid = false;
    expiry.check([keyUser], grace, false);
    assert.equal(keyUser.expired, 0, 'not per batch of events');
    expiry.check([keyUser], grace, true);
    assert.equal(keyUser.expired, 1);
  });

  it('a deleted project ends every stream', () => {
    const expiry = new IdentityExpiry(new ManualClock());
    const clients = [client({}), client(undefined)];
    expiry.check(clients, undefined, false);
    assert.deepEqual(
      clients.map((c) => c.closed),
      [true, true],
    );
  });
});
