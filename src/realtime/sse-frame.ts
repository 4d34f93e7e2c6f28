/**
 * Server-Sent Events frames, encoded once and written to many streams. A row event reaches
 * hundreds of streams with the same `id:`, `event:` (the topic) and `data:`: its frame is built
 * once per topic (delivery.ts) and the same bytes go to every stream, so fan-out does no
 * per-subscriber string building or UTF-8 encoding.
 */

/** One SSE frame (an event, or a comment), with its bytes made on first use. */
export class SseFrame {
  private plain: Buffer | undefined;
  private chunk: Buffer | undefined;

  constructor(readonly text: string) {}

  /** The frame as UTF-8. */
  get bytes(): Buffer {
    this.plain ??= Buffer.from(this.text, 'utf8');
    return this.plain;
  }

  /**
   * The frame as one chunk of an HTTP/1.1 chunked body (size line, bytes, CRLF): a stream
   * written straight to its socket sends these, still one shared Buffer per frame.
   */
  get chunked(): Buffer {
    if (this.chunk) return this.chunk;
    const length = Buffer.byteLength(this.text, 'utf8');
    const head = `${length.toString(16)}\r\n`;
    const chunk = Buffer.allocUnsafe(head.length + length + 2);
    chunk.write(head, 0, 'latin1');
    chunk.write(this.text, head.length, 'utf8');
    chunk.write('\r\n', head.length + length, 'latin1');
    this.chunk = chunk;
    return chunk;
  }
}

/** An event frame: optional `id:`, `event:` and one `data:` line (data is JSON, so it holds no newline). */
export function eventFrame(event: string, data: string, id?: number): SseFrame {
  return new SseFrame(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`);
}

/** The comment that keeps proxies from closing an idle stream: one frame for every stream. */
export const PING_FRAME = new SseFrame(': ping\n\n');
