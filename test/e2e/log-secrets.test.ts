import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const PLATFORM_KEY = 'rb_log_test_platform_key_ABCDEFGHIJ';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

// Runs the real server at the most verbose log level and checks that nothing secret it was
// sent (keys, passwords, tokens in bodies, headers or query strings) appears in its output.
describe('logs never contain secrets', () => {
  let child: ChildProcess;
  let output = '';
  let base = '';
  let dataDir = '';
  const secrets: string[] = [PLATFORM_KEY];

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-logs-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'trace', PLATFORM_KEY, RATE_LIMITS: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`${base}/health`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`server did not start:\n${output}`);
  });

  after(async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps platform keys, project keys, passwords and tokens out of every log line', async () => {
    const json = { 'content-type': 'application/json' };
    const project = await (await fetch(`${base}/v1/projects`, { method: 'POST', headers: { ...json, 'x-platform-key': PLATFORM_KEY }, body: JSON.stringify({ name: 'logs', id: 'logs' }) })).json();
    const sk: string = project.data.admin_key;
    const pk: string = project.data.publishable_key;
    secrets.push(sk, pk);
    const admin = { ...json, 'x-admin-key': sk };
    await fetch(`${base}/p/logs/v1/tables/users`, { method: 'PUT', headers: admin, body: JSON.stringify({ auth_table: true, columns: [{ name: 'name', type: 'text' }] }) });
    const password = 'correct horse battery staple 42';
    secrets.push(password);
    await fetch(`${base}/p/logs/api/users`, { method: 'POST', headers: admin, body: JSON.stringify({ email: 'a@example.com', password }) });
    // Wrong keys and tokens are secrets too (a typo of a real one is close to it).
    const wrongKey = 'sk_wrongwrongwrongwrongwrongwrongwrong12';
    const bearer = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2VjcmV0LXNpZ25hdHVyZQ';
    const queryToken = 'query-token-secret-value-0123456789';
    secrets.push(wrongKey, bearer, queryToken);
    await fetch(`${base}/p/logs/api/users`, { headers: { 'x-admin-key': wrongKey } });
    await fetch(`${base}/p/logs/api/users`, { headers: { authorization: `Bearer ${bearer}` } });
    await fetch(`${base}/p/logs/api/users?x-api-key=${pk}`, { headers: { 'x-api-key': pk } });
    await fetch(`${base}/p/logs/auth/verify?token=${queryToken}`);
    await fetch(`${base}/p/logs/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ email: 'a@example.com', password }) });
    await new Promise((r) => setTimeout(r, 200));

    assert.ok(output.includes('"reqId"'), 'the server logs requests with their ids');
    for (const secret of secrets) assert.ok(!output.includes(secret), `a secret leaked into the logs: ${secret.slice(0, 6)}…`);
  });
});
