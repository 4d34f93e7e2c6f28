/**
 * The SDK's event stream parser, shared by the SDK's realtime client and the dashboard: it
 * reads a stream the way the HTML specification says a browser's EventSource does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventStreamParser, readEventStream, type ServerSentEvent } from '../../../packages/client/src/sse.js';

function parseAll(...chunks: string[]): ServerSentEvent[] {
  const parser = new EventStreamParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

describe('event stream parser (SSE spec)', () => {
  it('removes exactly one space after the colon and keeps any other whitespace', () => {
    const [event] = parseAll('event:tasks\ndata:  two spaces \n\n');
    assert.deepEqual(event, { event: 'tasks', data: ' two spaces ', id: undefined });
    const [spaced] = parseAll('event: tasks\ndata: {"a":1}\n\n');
    assert.deepEqual(spaced, { event: 'tasks', data: '{"a":1}', id: undefined });
  });

  it('accepts \\r\\n, \\r and \\n line ends, even split between chunks', () => {
    assert.deepEqual(
      parseAll('data: a\r\n\r\ndata: b\r\rdata: c\n\n').map((e) => e.data),
      ['a', 'b', 'c'],
    );
    // A \r\n cut between two chunks is one line end, not an empty line that would dispatch early.
    assert.deepEqual(
      parseAll('data: x\r', '\ndata: y\r', '\n\r\n').map((e) => e.data),
      ['x\ny'],
    );
  });

  it('joins multi-line data with \\n, without a trailing newline', () => {
    assert.deepEqual(parseAll('data: first\ndata: second\ndata\n\n')[0]?.data, 'first\nsecond\n');
  });

  it('ignores comment lines and keepalives, and dispatches nothing for an event without data', () => {
    assert.deepEqual(parseAll(': keepalive\n\n', 'event: ping\n\n', ':hi\ndata: kept\n\n'), [
      { event: 'message', data: 'kept', id: undefined },
    ]);
  });

  it('names an event without an event field "message", and keeps the last id for later events', () => {
    const events = parseAll('id: 7\nevent: tasks\ndata: {}\n\n', 'data: later\n\n', 'id:\ndata: cleared\n\n');
    assert.deepEqual(events, [
      { event: 'tasks', data: '{}', id: '7' },
      { event: 'message', data: 'later', id: '7' },
      { event: 'message', data: 'cleared', id: '' },
    ]);
  });

  it('keeps a line cut between chunks whole, and drops a leading byte order mark', () => {
    assert.deepEqual(parseAll('\uFEFFeve', 'nt: connect\nda', 'ta: {"client_id":"c1"}\n', '\n'), [
      { event: 'connect', data: '{"client_id":"c1"}', id: undefined },
    ]);
  });

  it('readEventStream decodes UTF-8 split across chunks and waits for each handler', async () => {
    const bytes = new TextEncoder().encode('data: é\n\ndata: next\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        // Cut inside the two-byte "é".
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    const seen: string[] = [];
    await readEventStream(body, async (event) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(event.data);
    });
    assert.deepEqual(seen, ['é', 'next']);
  });
});
