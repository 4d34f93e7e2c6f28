import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  PROCESS_PLATFORM_KEY as PLATFORM_KEY,
  startServerProcess,
  type ServerProcess,
} from '../helpers/server-process.js';

// Runs the real server at the most verbose log level and checks that nothing secret it was
// sent (keys, passwords, tokens in bodies, headers or query strings) appears in its output.
describe('logs never contain secrets', () => {
  let server: ServerProcess;
  let base = '';
  let dataDir = '';
  const secrets: string[] = [PLATFORM_KEY];

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-logs-'));
    server = await startServerProcess(dataDir, { LOG_LEVEL: 'trace' });
    base = server.url;
  });

  after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps platform keys, project keys, passwords and tokens out of every log line', async () => {
    const json = { 'content-type': 'application/json' };
    const project = await (
      await fetch(`${base}/v1/projects`, {
        method: 'POST',
        headers: { ...json, 'x-platform-key': PLATFORM_KEY },
        body: JSON.stringify({ name: 'logs', id: 'logs' }),
      })
    ).json();
    const sk: string = project.data.admin_key;
    const pk: string = project.data.publishable_key;
    secrets.push(sk, pk);
    const admin = { ...json, 'x-admin-key': sk };
    await fetch(`${base}/p/logs/v1/tables/users`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({ auth_table: true, columns: [{ name: 'name', type: 'text' }] }),
    });
    const password = 'correct horse battery staple 42';
    secrets.push(password);
    await fetch(`${base}/p/logs/api/users`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ email: 'a@example.com', password }),
    });
    // Wrong keys and tokens are secrets too (a typo of a real one is close to it).
    const wrongKey = 'sk_wrongwrongwrongwrongwrongwrongwrong12';
    const bearer = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2VjcmV0LXNpZ25hdHVyZQ';
    const queryToken = 'query-token-secret-value-0123456789';
    secrets.push(wrongKey, bearer, queryToken);
    await fetch(`${base}/p/logs/api/users`, { headers: { 'x-admin-key': wrongKey } });
    await fetch(`${base}/p/logs/api/users`, { headers: { authorization: `Bearer ${bearer}` } });
    await fetch(`${base}/p/logs/api/users?x-api-key=${pk}`, { headers: { 'x-api-key': pk } });
    await fetch(`${base}/p/logs/auth/verify?token=${queryToken}`);
    await fetch(`${base}/p/logs/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'a@example.com', password }),
    });
    await new Promise((r) => setTimeout(r, 200));

    const output = server.output();
    assert.ok(output.includes('"reqId"'), 'the server logs requests with their ids');
    for (const secret of secrets)
      assert.ok(!output.includes(secret), `a secret leaked into the logs: ${secret.slice(0, 6)}…`);
  });
});
