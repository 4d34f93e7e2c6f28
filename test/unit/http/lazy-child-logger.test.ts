import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { lazyChildLogger } from '../../../src/http/logging.js';

/** A request logger made the way Fastify makes one, over a pino logger at `level` writing into `lines`. */
function requestLogger(level: string, lines: string[]): FastifyBaseLogger {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).trim().split('\n'));
      done();
    },
  });
  const logger = pino({ level }, sink) as unknown as FastifyBaseLogger;
  return (lazyChildLogger as (...args: unknown[]) => FastifyBaseLogger).call(
    null,
    logger,
    { reqId: 'req-1' },
    {},
    undefined,
  );
}

const flushed = () => new Promise((resolve) => setImmediate(resolve));

describe('lazyChildLogger (the per-request logger)', () => {
  const scenarios: ReadonlyArray<
    readonly [string, string, (log: FastifyBaseLogger) => void, readonly Record<string, unknown>[]]
  > = [
    ['at warn, info lines are dropped', 'warn', (log) => log.info('hidden'), []],
    [
      'at warn, a warn line carries the request id',
      'warn',
      (log) => log.warn({ a: 1 }, 'shown'),
      [{ level: 40, reqId: 'req-1', a: 1, msg: 'shown' }],
    ],
    [
      'an error line carries the request id',
      'warn',
      (log) => log.error('boom'),
      [{ level: 50, reqId: 'req-1', msg: 'boom' }],
    ],
    [
      'a child of the request logger keeps the request id and adds its bindings',
      'warn',
      (log) => log.child({ part: 'x' }).error('child'),
      [{ level: 50, reqId: 'req-1', part: 'x', msg: 'child' }],
    ],
    [
      'at trace, every level is written with the request id',
      'trace',
      (log) => {
        log.trace('t');
        log.info('i');
      },
      [
        { level: 10, reqId: 'req-1', msg: 't' },
        { level: 30, reqId: 'req-1', msg: 'i' },
      ],
    ],
  ];
  for (const [name, level, use, expected] of scenarios) {
    it(name, async () => {
      const lines: string[] = [];
      use(requestLogger(level, lines));
      await flushed();
      assert.deepEqual(
        lines.map((line) => {
          const { time: _time, pid: _pid, hostname: _hostname, ...rest } = JSON.parse(line) as Record<string, unknown>;
          return rest;
        }),
        expected,
      );
    });
  }
});
