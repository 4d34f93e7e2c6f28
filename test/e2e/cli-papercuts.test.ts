/**
 * Newcomer papercuts of the CLI, each run as a real process (`node --import tsx src/main.ts`):
 * short platform keys refused at start, unknown flags refused with the closest known flag.
 * @engine sqlite — what is checked here is argument and setting parsing before any storage is
 * opened (plus one start over a data folder); the PostgreSQL pass would repeat it unchanged.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROCESS_PLATFORM_KEY, startServerProcess } from '../helpers/server-process.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('CLI papercuts', () => {
  let dataDir: string;
  const run = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/main.ts', ...args],
        { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', PLATFORM_KEY: PROCESS_PLATFORM_KEY, PORT: '0', ...env }, timeout: 30_000 },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
    });

  before(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-cli-papercuts-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  describe('PLATFORM_KEY length', () => {
    it('PLATFORM_KEY=short: serve refuses to start (exit 2), says 32 characters and how to generate a key', async () => {
      const result = await run(['serve'], { PLATFORM_KEY: 'short' });
      assert.equal(result.code, 2, result.stdout + result.stderr);
      assert.match(result.stderr, /PLATFORM_KEY must be at least 32 characters; this one has 5/);
      assert.match(result.stderr, /randomBytes/, 'says how to generate one');
      assert.doesNotMatch(result.stdout, /listening/);
    });

    it('--platform-key of 31 characters is refused the same way, with --json as an error envelope', async () => {
      const result = await run(['serve', '--platform-key', 'x'.repeat(31), '--json']);
      assert.equal(result.code, 2);
      const error = JSON.parse(result.stderr).error;
      assert.equal(error.code, 'CONFIG_INVALID');
      assert.match(error.message, /this one has 31/);
      assert.doesNotMatch(result.stderr, /x{31}/, 'the key itself is not echoed');
    });

    it('a key of exactly 32 characters starts the server, which accepts it', async () => {
      const key = 'k'.repeat(32);
      const server = await startServerProcess(dataDir, { PLATFORM_KEY: key });
      try {
        const response = await fetch(`${server.url}/v1/projects`, { headers: { 'x-platform-key': key } });
        assert.equal(response.status, 200);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    });
  });
});
