/**
 * A server-sent events parser that follows the HTML specification's event stream format
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
 * so the SDK and the dashboard read the realtime stream the same way: lines end in `\r\n`,
 * `\n` or `\r`; one optional space after the colon is removed and any other whitespace is
 * kept; `data` lines of one event are joined with `\n`; lines starting with `:` are comments.
 */

/** One dispatched event. */
export interface ServerSentEvent {
  /** The `event` field, or `message` when the event named none. */
  readonly event: string;
  /** The `data` lines joined with `\n`. */
  readonly data: string;
  /** The last event ID seen on this stream (it carries over to later events, as in the spec), or undefined. */
  readonly id: string | undefined;
}

/** Parses one stream fed in pieces of text; keep one parser per connection. */
export class EventStreamParser {
  private pending = '';
  /** A chunk ended in `\r`: a `\n` starting the next chunk belongs to the same line end. */
  private afterCarriageReturn = false;
  private started = false;
  private eventType = '';
  private dataLines: string[] = [];
  private lastEventId: string | undefined;

  /** Feeds the next decoded piece of the stream; returns the events it completed, in order. */
  push(text: string): ServerSentEvent[] {
    let chunk = text;
    if (!this.started && chunk.length > 0) {
      this.started = true;
      // The spec drops one byte order mark at the very start of the stream.
      if (chunk.startsWith('\uFEFF')) chunk = chunk.slice(1);
    }
    if (this.afterCarriageReturn && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.afterCarriageReturn = false;
    const events: ServerSentEvent[] = [];
    let buffer = this.pending + chunk;
    const lineEnd = /\r\n|\r|\n/g;
    let start = 0;
    for (let match = lineEnd.exec(buffer); match !== null; match = lineEnd.exec(buffer)) {
      // A `\r` at the very end may be the first half of `\r\n`: take the line, and skip a leading `\n` next time.
      if (match[0] === '\r' && match.index === buffer.length - 1) this.afterCarriageReturn = true;
      const event = this.line(buffer.slice(start, match.index));
      if (event) events.push(event);
      start = match.index + match[0].length;
    }
    buffer = buffer.slice(start);
    this.pending = buffer;
    return events;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.eventType = value;
    else if (field === 'data') this.dataLines.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    // `retry` and unknown fields are ignored: the SDK and the dashboard choose their own reconnection delays.
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const type = this.eventType;
    this.eventType = '';
    if (this.dataLines.length === 0) return undefined;
    const data = this.dataLines.join('\n');
    this.dataLines = [];
    return { event: type === '' ? 'message' : type, data, id: this.lastEventId };
  }
}

/**
 * Reads an event stream body to its end, calling `onEvent` for each event and waiting for
 * the promise it may return before reading on (so a handler that subscribes runs before the
 * next event is judged). Rejects when the body fails or a handler throws.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: ServerSentEvent) => void | Promise<void>,
): Promise<void> {
  const parser = new EventStreamParser();
  const reader = body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    for (const event of parser.push(decoder.decode(value, { stream: true }))) await onEvent(event);
  }
}
