/**
 * The hub during a database outage (issue 27, defect 2): a project's feed that cannot load
 * (its schema read fails) must not leave a rejected promise unhandled, whatever else (a poll,
 * a wake-up, a commit of this process) was waiting on that feed meanwhile.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { AppError } from '../../../src/errors/app-error.js';
import { RealtimeHub } from '../../../src/realtime/realtime-hub.js';
import type { SchemaService } from '../../../src/tables/schema-service.js';

describe('realtime hub while the database is unreachable', () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', record);
  });
  afterEach(() => process.off('unhandledRejection', record));

  /** A schema service whose reads fail like a stopped PostgreSQL, a little later than asked. */
  const unreachable = {
    schema: () =>
      new Promise((_, reject) => setTimeout(() => reject(new AppError('SERVICE_UNAVAILABLE', { message: 'down' })), 5)),
  } as unknown as SchemaService;

  it('a stream failing to open while a wake-up and a commit wait on its feed: no unhandled rejection', async () => {
    const warnings: string[] = [];
    const hub = new RealtimeHub({
      schemas: unreachable,
      clock: { now: () => 0 },
      projectState: async () => undefined,
      log: { warn: (_object, message) => warnings.push(message) },
    });
    const opening = hub.prepare('p1');
    hub.wake('p1');
    hub.committed('p1', [{ seq: 1, kind: 'row', change: { table: 't', action: 'insert', row: {} } } as never]);
    await assert.rejects(
      opening,
      (error: unknown) => error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE',
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(unhandled, []);
    assert.ok(warnings.length >= 1, 'the failed feed load is logged');
    hub.close();
  });
});
