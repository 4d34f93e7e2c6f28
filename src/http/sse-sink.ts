/**
 * The socket side of a realtime stream. Once the response head is out, frames go straight to
 * the socket: `ServerResponse.write` would frame every write as a chunk of its own (a size
 * string, three buffers, a cork until the next tick) for each of hundreds of subscribers,
 * while a frame's chunk is the same bytes for all of them (`SseFrame.chunked`). The body stays
 * a valid chunked body, so `end()` through the response still closes it properly.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { EventSink } from '../realtime/realtime-client.js';
import type { SseFrame } from '../realtime/sse-frame.js';

/** Sends the response head now and returns the sink that writes frames after it. */
export function buildSseSink(raw: ServerResponse): EventSink {
  raw.flushHeaders();
  const socket = raw.socket;
  // Bytes still held by the response (the head behind an earlier response on a pipelined
  // connection) must leave first: then the response writes every frame itself.
  if (!socket || raw.writableLength > socket.writableLength) return new ResponseSink(raw);
  return new SocketSink(raw, socket, raw.chunkedEncoding);
}

/** Frames straight to the socket. A class, not closures: ten thousand idle streams hold one each. */
class SocketSink implements EventSink {
  constructor(
    private readonly raw: ServerResponse,
    private readonly socket: Socket,
    /** False for an HTTP/1.0 client: no chunked coding, its body is the frames until the socket closes. */
    private readonly chunked: boolean,
  ) {}

  write(frames: readonly SseFrame[]): void {
    const socket = this.socket;
    if (socket.destroyed) return;
    if (frames.length === 1) {
      socket.write(this.encode(frames[0]!));
      return;
    }
    // One system call for the batch.
    socket.cork();
    for (const frame of frames) socket.write(this.encode(frame));
    socket.uncork();
  }

  end(): void {
    this.raw.end();
  }

  /**
   * A reset, not a close: the backlog is dropped at once instead of the kernel trying to
   * deliver it (and the end behind it) to a peer that does not read.
   */
  destroy(): void {
    this.socket.resetAndDestroy();
  }

  /** The response's own buffer plus the socket's. */
  get writableLength(): number {
    return this.raw.writableLength;
  }

  private encode(frame: SseFrame): Buffer {
    return this.chunked ? frame.chunked : frame.bytes;
  }
}

/** Without a socket of its own (not expected over HTTP/1.1), the response writes each frame. */
class ResponseSink implements EventSink {
  constructor(private readonly raw: ServerResponse) {}

  write(frames: readonly SseFrame[]): void {
    for (const frame of frames) this.raw.write(frame.text);
  }

  end(): void {
    this.raw.end();
  }

  destroy(): void {
    this.raw.destroy();
  }

  get writableLength(): number {
    return this.raw.writableLength;
  }
}
