/**
 * Realtime bounds (contract §11, docs/realtime.md "Limits"): streams per process (503), a slow
 * reader disconnected past its buffer bound, pings on idle streams, CORS on the stream, and a
 * shutdown that ends every stream so clients reconnect elsewhere.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { eventually } from '../helpers/eventually.js';
import { openStream, type SseStream } from '../helpers/sse-client.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

describe('realtime limits', () => {
  let server: TestServer;
  let project: TestProject;
  const streams: SseStream[] = [];
  /** Waits until the server counts `count` open streams (a closed one is noticed when its socket closes). */
  const streamsOpen = (count: number) =>
    eventually(() => server.built.services.realtime.size === count, { what: `${count} open streams` });

  before(async () => {
    server = await startTestServer({}, { realtime: { maxClients: 3, maxBufferedBytes: 256 * 1024, pingMs: 100 } });
    project = await createProject(server);
    await putTable(server, project, 'blobs', { columns: [{ name: 'body', type: 'text' }], rules: { list: '' } });
  });
  after(async () => {
    for (const stream of streams) stream.close();
    await server.close();
  });

  it('idle streams get a ": ping" comment', async () => {
    const stream = await openStream(server.url, project.id);
    streams.push(stream);
    await eventually(() => stream.pings >= 2, { timeoutMs: 3_000, what: 'two pings' });
    stream.close();
  });

  it('past the per-process stream limit → 503 SERVICE_UNAVAILABLE; a closed stream frees its place', async () => {
    await streamsOpen(0);
    const open = [
      await openStream(server.url, project.id),
      await openStream(server.url, project.id),
      await openStream(server.url, project.id),
    ];
    streams.push(...open);
    assertError(await server.request('GET', `/p/${project.id}/realtime`), 503, 'SERVICE_UNAVAILABLE');
    open[0]!.close();
    await streamsOpen(2);
    streams.push(await openStream(server.url, project.id));
    for (const stream of open) stream.close();
  });

  it('a reader that stops reading is disconnected once its unsent events pass the bound', async () => {
    for (const stream of streams) stream.close();
    await streamsOpen(0);
    // A raw request whose body is never read: the kernel buffers fill, then the server's.
    const { clientId, response } = await new Promise<{ clientId: string; response: http.IncomingMessage }>(
      (resolve, reject) => {
        const request = http.get(`${server.url}/p/${project.id}/realtime`, (res) => {
          res.once('data', (chunk: Buffer) => {
            res.pause();
            resolve({ clientId: JSON.parse(/data: (.*)/.exec(chunk.toString())![1]!).client_id, response: res });
          });
        });
        request.on('error', reject);
      },
    );
    const closed = new Promise<void>((resolve) => response.socket.once('close', () => resolve()));
    const subscribed = await server.request('POST', `/p/${project.id}/realtime`, {
      headers: project.admin,
      body: { client_id: clientId, subscriptions: ['blobs'] },
    });
    assert.equal(subscribed.status, 200, subscribed.text);
    const body = 'x'.repeat(10_000);
    for (let i = 0; i < 6; i++) {
      const bulk = await server.request('POST', `/p/${project.id}/api/blobs/bulk`, {
        headers: project.admin,
        body: Array.from({ length: 1000 }, () => ({ body })),
      });
      assert.equal(bulk.status, 201);
      if (server.built.services.realtime.size === 0) break;
    }
    await eventually(() => server.built.services.realtime.size === 0, {
      timeoutMs: 10_000,
      what: 'the slow reader to be disconnected',
    });
    assertError(
      await server.request('POST', `/p/${project.id}/realtime`, {
        headers: project.admin,
        body: { client_id: clientId, subscriptions: ['blobs'] },
      }),
      404,
      'REALTIME_CLIENT_NOT_FOUND',
    );
    // A reader that stopped does not read the end either: reading again, it finds the connection gone.
    response.on('error', () => undefined);
    response.resume();
    await Promise.race([
      closed,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('the connection of the slow reader is still open')), 10_000),
      ),
    ]);
  });

  it('CORS: a page on an allowed origin may read the stream', async () => {
    const stream = await openStream(server.url, project.id, { origin: 'https://app.example.com' });
    streams.push(stream);
    assert.equal(stream.headers.get('access-control-allow-origin'), '*');
    stream.close();
    await streamsOpen(0);
  });
});

describe('shutdown', () => {
  it('closing the server ends every stream at once', async () => {
    const server = await startTestServer();
    const project = await createProject(server);
    const streams = [await openStream(server.url, project.id), await openStream(server.url, project.id)];
    const started = Date.now();
    await server.close();
    for (const stream of streams) await stream.waitForEnd(2_000);
    assert.ok(Date.now() - started < 5_000, 'close did not wait for the streams to end by themselves');
  });
});
