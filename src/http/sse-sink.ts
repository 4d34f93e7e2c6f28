/**
 * The socket side of a realtime stream. Once the response head is out, frames go straight to
 * the socket: `ServerResponse.write` would frame every write as a chunk of its own (a size
 * string, three buffers, a cork until the next tick) for each of hundreds of subscribers,
 * while a frame's chunk is the same bytes for all of them (`SseFrame.chunked`). The body stays
 * a valid chunked body, so `end()` through the response still closes it properly.
 */
import type { ServerResponse } from 'node:http';
import type { EventSink } from '../realtime/realtime-client.js';
import type { SseFrame } from '../realtime/sse-frame.js';

/** Sends the response head now and returns the sink that writes frames after it. */
export function buildSseSink(raw: ServerResponse): EventSink {
  raw.flushHeaders();
  const socket = raw.socket;
  // Bytes still held by the response (the head behind an earlier response on a pipelined
  // connection) must leave first: then the response writes every frame itself.
  if (!socket || raw.writableLength > socket.writableLength) return responseSink(raw);
  // An HTTP/1.0 client gets no chunked coding: its body is the frames until the socket closes.
  const encode = raw.chunkedEncoding ? (frame: SseFrame) => frame.chunked : (frame: SseFrame) => frame.bytes;
  return {
    write(frames) {
      if (socket.destroyed) return;
      if (frames.length === 1) {
        socket.write(encode(frames[0]!));
        return;
      }
      // One system call for the batch.
      socket.cork();
      for (const frame of frames) socket.write(encode(frame));
      socket.uncork();
    },
    end: () => raw.end(),
    // A reset, not a close: the backlog is dropped at once instead of the kernel trying to
    // deliver it (and the end behind it) to a peer that does not read.
    destroy: () => socket.resetAndDestroy(),
    get writableLength() {
      // The response's own buffer plus the socket's.
      return raw.writableLength;
    },
  };
}

/** Without a socket of its own (not expected over HTTP/1.1), the response writes each frame. */
function responseSink(raw: ServerResponse): EventSink {
  return {
    write(frames) {
      for (const frame of frames) raw.write(frame.text);
    },
    end: () => raw.end(),
    destroy: () => raw.destroy(),
    get writableLength() {
      return raw.writableLength;
    },
  };
}
