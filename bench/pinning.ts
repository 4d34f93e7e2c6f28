/**
 * Where the harness runs each process: the server under test on one core and the load
 * generator on another (taskset), so the load generator can never take the server's CPU.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** taskset -c lists; undefined when the machine has one core or no taskset. */
export interface Pinning {
  readonly server: string;
  readonly load: string;
}

/** Server on CPU 0, load generator on CPU 1 (the rest, if any, stay free for PostgreSQL and the harness). */
export function choosePinning(enabled: boolean): Pinning | undefined {
  if (!enabled || availableParallelism() < 2 || !existsSync('/usr/bin/taskset')) return undefined;
  return { server: '0', load: '1' };
}
