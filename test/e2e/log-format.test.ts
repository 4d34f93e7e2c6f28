/**
 * Log formats of the started server: readable lines for a person at a terminal (LOG_FORMAT=pretty,
 * the default when stdout is a terminal), pino's JSON lines for collectors (the default when
 * stdout is a pipe or a file). Secrets stay redacted in both.
 * @engine sqlite
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort, startServerProcess } from '../helpers/server-process.js';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rowbase-logfmt-'));
  dirs.push(dir);
  return dir;
};

/** Starts the server with `env`, sends two requests, stops it and returns what it printed. */
async function outputOf(env: Record<string, string>): Promise<string> {
  const server = await startServerProcess(dataDir(), { LOG_LEVEL: 'info', ...env });
  await fetch(`${server.url}/health?token=query-secret-0123456789`);
  await fetch(`${server.url}/no/such/route`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  server.child.kill('SIGTERM');
  await server.exited;
  return server.output();
}

describe('log format', () => {
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('LOG_FORMAT=pretty writes one readable line per request, with secrets redacted', async () => {
    const output = await outputOf({ LOG_FORMAT: 'pretty' });
    assert.match(output, /INFO: GET \/health\?token=\[redacted\] → 200 in \d+\.\d ms/);
    assert.match(output, /INFO: GET \/no\/such\/route → 404 in \d+\.\d ms/);
    assert.doesNotMatch(output, /^\{"level"/m, 'no JSON log lines');
    assert.doesNotMatch(output, /incoming request/, 'one line per request, not two');
    assert.ok(!output.includes('query-secret-0123456789'));
  });

  it('stdout that is not a terminal gets JSON lines by default', async () => {
    const output = await outputOf({});
    const lines = output.split('\n').filter((line) => line.startsWith('{'));
    const completed = lines
      .map((line) => JSON.parse(line))
      .find((entry) => entry.msg === 'request completed' && entry.res?.statusCode === 200);
    assert.ok(completed, `a JSON "request completed" entry in:\n${output}`);
    assert.equal(typeof completed.reqId, 'string');
    assert.ok(!output.includes('query-secret-0123456789'));
  });

  it('a terminal gets readable lines without any setting', {
    skip: !existsSync('/usr/bin/script') && 'no script(1) to give the server a terminal',
  }, async () => {
    const port = await freePort();
    const env = {
      ...process.env,
      DATA_DIR: dataDir(),
      PORT: String(port),
      LOG_LEVEL: 'info',
      PLATFORM_KEY: 'rb_e2e_platform_key_0123456789abcdef',
    };
    // script(1) runs the server on a pseudo-terminal; `timeout` ends it after it has answered.
    const command =
      `(sleep 6; curl -s http://127.0.0.1:${port}/health ` +
      '>/dev/null) & timeout -s TERM 9 node --import tsx src/main.ts serve';
    const result = spawnSync('/usr/bin/script', ['-qec', command, '/dev/null'], {
      env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    // On a terminal pino-pretty colours its lines: read them without the escape sequences.
    const text = result.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    assert.match(text, /INFO: GET \/health → 200 in \d+\.\d ms/, text);
    assert.doesNotMatch(text, /^\{"level"/m);
    assert.doesNotMatch(text, /Deprecation/, 'no framework warnings for a person to wonder about');
  });

  it('an unknown LOG_FORMAT stops the server at start with a clear message', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      env: { ...process.env, DATA_DIR: dataDir(), LOG_FORMAT: 'fancy' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(result.status, 2);
    assert.match(result.stderr + result.stdout, /LOG_FORMAT must be "pretty" or "json"/);
  });
});
