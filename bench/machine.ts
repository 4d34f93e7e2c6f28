/**
 * What the figures were measured on: CPU, memory, kernel, Node, SQLite, the commit.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import BetterSqlite3 from 'better-sqlite3';

export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly memory: string;
  readonly os: string;
  readonly node: string;
  readonly sqlite: string;
  readonly commit: string;
  /** 1-minute load average when the run started (other work on the machine). */
  readonly loadAtStart: number;
}

function git(args: string[], cwd: string): string {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** Describes this machine and the checkout at `root`. */
export function describeMachine(root: string): MachineInfo {
  const memory = new BetterSqlite3(':memory:');
  const sqlite = memory.prepare('SELECT sqlite_version()').pluck().get() as string;
  memory.close();
  const commit = git(['rev-parse', '--short', 'HEAD'], root);
  // Uncommitted changes to the code under test make the figures belong to no commit: say so.
  const dirty = git(['status', '--porcelain', '--', 'src', 'bench', 'scripts', 'package.json'], root) !== '';
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    sqlite,
    commit: commit ? `${commit}${dirty ? ' (with uncommitted changes)' : ''}` : 'unknown',
    loadAtStart: os.loadavg()[0]!,
  };
}
