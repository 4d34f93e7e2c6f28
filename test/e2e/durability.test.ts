/**
 * Durability and shutdown of the real server process (contract §0, issue 2): every write
 * acknowledged with 201 survives SIGKILL, the database files stay intact, and SIGTERM lets
 * in-flight requests finish before the process exits 0.
 * @engine sqlite — it checks the SQLite files themselves, so the PostgreSQL pass leaves it out.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { call, PROCESS_PLATFORM_KEY, startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const MAX_WRITES = 3000;
const MAX_STREAM_MS = 10_000;
// Kill after this many acknowledgements or this long, whichever comes first (fsync-bound on a busy disk).
const KILL_AFTER_ACKS = 200;
const KILL_AFTER_MS = 5000;
const WRITERS = 8;

function integrityCheck(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

/** A POST whose headers and first body byte go out now and the rest on finish(). */
function startSlowPost(url: string, route: string, headers: Record<string, string>, body: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const head = [
    `POST ${route} HTTP/1.1`,
    `Host: ${hostname}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  const headersSent = new Promise<void>((resolve) =>
    socket.once('connect', () => socket.write(`${head.join('\r\n')}\r\n\r\n${body.slice(0, 1)}`, () => resolve())),
  );
  let raw = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => (raw += chunk));
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    socket.on('end', () =>
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0),
        text: raw.slice(raw.indexOf('\r\n\r\n') + 4),
      }),
    );
    socket.on('error', reject);
  });
  return { headersSent, response, finish: () => socket.write(body.slice(1)) };
}

async function setUpProject(server: ServerProcess, id: string): Promise<Record<string, string>> {
  const created = await call(
    server.url,
    'POST',
    '/v1/projects',
    { 'x-platform-key': PROCESS_PLATFORM_KEY },
    { name: id, id },
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const admin = { 'x-admin-key': created.body.data.admin_key as string };
  const table = await call(server.url, 'PUT', `/p/${id}/v1/tables/events`, admin, {
    columns: [
      { name: 'seq', type: 'integer', required: true },
      { name: 'payload', type: 'text' },
    ],
  });
  assert.equal(table.status, 201, JSON.stringify(table.body));
  return admin;
}

describe('durability and shutdown of the server process', () => {
  const dirs: string[] = [];
  const children: ServerProcess[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rowbase-e2e-'));
    dirs.push(dir);
    return dir;
  };
  after(async () => {
    for (const server of children)
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('every write acknowledged with 201 survives SIGKILL mid-stream; the files pass integrity_check', async () => {
    const dataDir = tempDir();
    const first = await startServerProcess(dataDir);
    children.push(first);
    const admin = await setUpProject(first, 'durable');

    const acknowledged = new Map<string, number>();
    let next = 0;
    let stop = false;
    const started = Date.now();
    const writer = async () => {
      while (!stop && next < MAX_WRITES && Date.now() - started < MAX_STREAM_MS) {
        const seq = next++;
        try {
          const response = await call(first.url, 'POST', '/p/durable/api/events', admin, {
            seq,
            payload: `event ${seq} ${'x'.repeat(seq % 200)}`,
          });
          if (response.status === 201) acknowledged.set(response.body.data.id, seq);
        } catch {
          return; // the connection died with the process: this write was never acknowledged
        }
        if ((acknowledged.size >= KILL_AFTER_ACKS || Date.now() - started >= KILL_AFTER_MS) && !stop) {
          stop = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, writer));
    if (!stop) first.child.kill('SIGKILL'); // the bound was reached before the kill threshold
    const exit = await first.exited;
    assert.equal(exit.signal, 'SIGKILL', 'the server was killed, not stopped');
    assert.ok(acknowledged.size >= 20, `only ${acknowledged.size} writes were acknowledged before the kill`);

    // Checked before anything reopens the files, so no recovery by our own server hides damage.
    assert.equal(integrityCheck(path.join(dataDir, 'projects', 'durable.db')), 'ok');
    assert.equal(integrityCheck(path.join(dataDir, 'system.db')), 'ok');

    const second = await startServerProcess(dataDir);
    children.push(second);
    const found = new Map<string, number>();
    for (let offset = 0; ; offset += 1000) {
      const page = await call(second.url, 'GET', `/p/durable/api/events?select=seq&limit=1000&offset=${offset}`, admin);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      for (const row of page.body.data) found.set(row.id, row.seq);
      if (page.body.data.length < 1000) break;
    }
    const lost = [...acknowledged].filter(([id, seq]) => found.get(id) !== seq);
    assert.deepEqual(
      lost,
      [],
      `${lost.length} of ${acknowledged.size} acknowledged writes are missing after the restart`,
    );
    assert.ok(found.size >= acknowledged.size, `found ${found.size} rows for ${acknowledged.size} acknowledgements`);

    // The restarted server takes writes on the same files.
    const afterRestart = await call(second.url, 'POST', '/p/durable/api/events', admin, { seq: -1 });
    assert.equal(afterRestart.status, 201, JSON.stringify(afterRestart.body));
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0, second.output());
  });

  it('SIGTERM while requests are in flight: they complete, then the process exits 0', async () => {
    const dataDir = tempDir();
    const server = await startServerProcess(dataDir);
    children.push(server);
    const admin = await setUpProject(server, 'graceful');

    // In flight for certain: the server has the headers, the rest of each body comes after the signal.
    const slow = [0, 1, 2].map((seq) =>
      startSlowPost(server.url, '/p/graceful/api/events', admin, JSON.stringify({ seq, payload: 'slow' })),
    );
    await Promise.all(slow.map((request) => request.headersSent));
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(server.child.exitCode, null, 'the process waits for the unfinished requests');
    const late = await call(server.url, 'POST', '/p/graceful/api/events', admin, { seq: 9 }).catch(
      (error: Error) => error,
    );
    assert.ok(late instanceof Error, `a request sent after the signal is not accepted: ${JSON.stringify(late)}`);
    for (const request of slow) request.finish();
    const answers = await Promise.all(slow.map((request) => request.response));
    assert.deepEqual(
      answers.map((a) => a.status),
      [201, 201, 201],
      JSON.stringify(answers),
    );
    assert.ok(
      answers.every((a) => /"payload":"slow"/.test(a.text)),
      JSON.stringify(answers),
    );
    const exit = await server.exited;
    assert.equal(exit.code, 0, `exit ${JSON.stringify(exit)}; output:\n${server.output()}`);
    await assert.rejects(fetch(`${server.url}/health`), 'the port is closed after shutdown');

    assert.equal(integrityCheck(path.join(dataDir, 'projects', 'graceful.db')), 'ok');
    const db = new Database(path.join(dataDir, 'projects', 'graceful.db'), { readonly: true });
    try {
      assert.equal(db.prepare('SELECT count(*) FROM events').pluck().get(), 3, 'the three slow writes are stored');
    } finally {
      db.close();
    }
  });
});
