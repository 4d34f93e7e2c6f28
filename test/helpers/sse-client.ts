/**
 * A small Server-Sent Events reader over fetch for the realtime tests: opens
 * GET /p/{id}/realtime, parses events as they arrive and lets a test wait for them.
 */
import assert from 'node:assert/strict';
import { eventually } from './eventually.js';

/** One parsed event (comments are counted, not kept). */
export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
}

/** An open stream. */
export interface SseStream {
  readonly clientId: string;
  readonly status: number;
  readonly headers: Headers;
  /** Every event received so far, `connect` included. */
  readonly events: SseEvent[];
  /** `: ping` comment lines received so far. */
  pings: number;
  /** True once the server ended the stream. */
  ended: boolean;
  /** Waits until `count` events (after `connect`) satisfy `match`; returns them. */
  waitFor(count: number, match?: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent[]>;
  /** Events after `connect` received so far that satisfy `match`. */
  received(match?: (event: SseEvent) => boolean): SseEvent[];
  /**
   * Waits for the first event matching `barrier` (a later write the stream must see) and returns
   * the events received before it: everything the server judged before the barrier, so what is
   * missing there was withheld, not merely late.
   */
  before(barrier: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent[]>;
  /** Waits until the server ends the stream. */
  waitForEnd(timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens a stream and waits for its `connect` event. */
export async function openStream(
  baseUrl: string,
  projectId: string,
  headers: Record<string, string> = {},
): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/p/${projectId}/realtime`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  if (response.status !== 200) assert.fail(`GET realtime: ${response.status} ${await response.text()}`);
  const events: SseEvent[] = [];
  let wake: () => void = () => undefined;
  const stream = {
    clientId: '',
    status: response.status,
    headers: response.headers,
    events,
    pings: 0,
    ended: false,
    received: (match: (event: SseEvent) => boolean = () => true) => events.slice(1).filter(match),
    async waitFor(count: number, match: (event: SseEvent) => boolean = () => true, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = stream.received(match);
        if (found.length >= count) return found;
        if (stream.ended || Date.now() > deadline) {
          assert.fail(
            `expected ${count} events, got ${found.length}: ${JSON.stringify(
              events
                .slice(1)
                .map((e) => [e.id, e.event, e.data.slice(0, 80)])
                .slice(-10),
            )}`,
          );
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
    },
    async before(barrier: (event: SseEvent) => boolean, timeoutMs = 5_000) {
      await stream.waitFor(1, barrier, timeoutMs);
      const received = stream.received();
      return received.slice(0, received.findIndex(barrier));
    },
    async waitForEnd(timeoutMs = 5_000) {
      await eventually(() => stream.ended, { timeoutMs, what: 'the stream to end' });
    },
    close: () => controller.abort(),
  };
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: string | undefined;
          let event = 'message';
          const data: string[] = [];
          let comment = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comment = true;
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (comment && data.length === 0) {
            stream.pings++;
            continue;
          }
          const text = data.join('\n');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          events.push({ id, event, data: text, json });
          wake();
        }
      }
    } catch {
      // aborted
    }
    stream.ended = true;
    wake();
  })();
  await eventually(() => events.length > 0 || stream.ended, { everyMs: 10, what: 'the connect event' });
  if (events.length === 0) assert.fail('no connect event: the stream ended');
  assert.equal(events[0]!.event, 'connect');
  (stream as { clientId: string }).clientId = (events[0]!.json as { client_id: string }).client_id;
  return stream;
}
