/**
 * One realtime client: an open event stream, its id, the identity bound by the last
 * subscription call and its topics. Writes Server-Sent Events; a client whose unsent bytes
 * outgrow the bound (a slow reader) is disconnected and resumes with `since`.
 *
 * Frames are not written one by one: a client collects those of one event-loop turn and
 * writes them together after it (`FlushQueue`), so a stream that several events reach in one
 * turn (a catch-up, a bulk write, a server behind on its work) costs one socket write, not one
 * per event.
 */
import type { ProjectState } from '../projects/project-registry.js';
import type { Caller } from '../tables/caller.js';
import type { Expr } from '../query/sql-tree.js';
import type { RowPredicate } from './row-predicate.js';
import type { Topic } from './topics.js';
import type { LoggedEvent } from '../changes/event-log.js';
import { eventFrame, PING_FRAME, type SseFrame } from './sse-frame.js';

/** Frames a client holds before writing them even within one turn. */
const MAX_BATCH = 32;

/** The socket side of a stream (http/routes/realtime.ts). */
export interface EventSink {
  /** Writes frames in order, as one batch. */
  write(frames: readonly SseFrame[]): void;
  /** Ends the stream once written frames are out. */
  end(): void;
  /** Drops the connection and whatever it has not sent yet (a slow reader). */
  destroy(): void;
  /** Bytes written and not yet taken by the network: what a slow reader leaves behind. */
  readonly writableLength: number;
}

/**
 * Clients with frames waiting, written once the current event-loop turn's work is done
 * (setImmediate). Delivery of every event handled in that turn is then one write per client.
 */
export class FlushQueue {
  private waiting: RealtimeClient[] = [];
  private scheduled = false;

  /** Flushes `client` after this turn (the client asks once per batch). */
  add(client: RealtimeClient): void {
    this.waiting.push(client);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const clients = this.waiting;
    this.waiting = [];
    for (const client of clients) {
      try {
        client.flush();
      } catch {
        // One broken socket must not keep the frames of the streams after it waiting.
        client.disconnected();
      }
    }
  }
}

/** Who the client is until its next subscription call. */
export interface BoundIdentity {
  /** Users: the row is replaced when an update of it is delivered ("the identity as it is then"). */
  caller: Caller;
  /** When the access token expires (ms), for bearer users. */
  readonly expiresAtMs: number | undefined;
  /** Identity ends logged at or before this number happened before the credentials were checked. */
  readonly boundAfterSeq: number;
  /** False once a key rotation or JWT secret rotation has ended the credential. */
  readonly stillValid: (state: ProjectState) => boolean;
}

/** A topic plus its predicates, compiled for one identity and one version of the table. */
export interface Subscription {
  readonly topic: Topic;
  cache?: {
    readonly table: object;
    readonly identity: number;
    readonly test: RowPredicate;
    readonly condition: Expr | undefined;
    readonly paths: boolean;
  };
}

/** One connected client of one project. */
export class RealtimeClient {
  subscriptions: Subscription[] = [];
  identity: BoundIdentity | undefined;
  /** Bumped whenever `identity` changes, so cached predicates are rebuilt. */
  identityVersion = 0;
  /** Bumped by each subscription call (bind): a replay stops when a later call took over. */
  bindings = 0;
  /** The last event number sent or skipped: nothing at or below it is sent again. */
  lastSeq = 0;
  /** While a `since` replay reads the log, live events wait here. */
  queued: LoggedEvent[] | undefined;
  /** `Last-Event-ID` of the GET that opened the stream: the default `since` of the next POST. */
  readonly lastEventId: string | undefined;
  closed = false;
  /** Frames of this turn, written by `flush`. */
  private outbox: SseFrame[] | undefined;

  constructor(
    readonly id: string,
    readonly projectId: string,
    private readonly sink: EventSink,
    private readonly maxBufferedBytes: number,
    private readonly flushes: FlushQueue,
    private readonly onClose: (client: RealtimeClient) => void,
    lastEventId?: string,
  ) {
    this.lastEventId = lastEventId;
  }

  /** Sends one event; disconnects a reader that fell too far behind. */
  send(event: string, data: string, id?: number): void {
    this.sendFrame(eventFrame(event, data, id));
  }

  /** Sends a frame built once for many clients (a row event, delivery.ts). */
  sendFrame(frame: SseFrame): void {
    if (this.closed) return;
    if (this.outbox) {
      // A long turn (a replay, a catch-up) writes as it goes: the slow-reader bound keeps holding.
      if (this.outbox.push(frame) >= MAX_BATCH) this.flush();
      return;
    }
    this.outbox = [frame];
    this.flushes.add(this);
  }

  /** A comment line that keeps proxies from closing an idle stream. */
  ping(): void {
    this.sendFrame(PING_FRAME);
  }

  /** Sends `auth_expired` and forgets the identity and topics until the next subscription call. */
  expire(): void {
    if (!this.identity) return;
    this.identity = undefined;
    this.subscriptions = [];
    this.queued = undefined;
    this.identityVersion++;
    this.send('auth_expired', '{}');
  }

  /** Ends the stream (shutdown, slow reader); the client reconnects and resumes with `since`. */
  close(): void {
    if (this.closed) return;
    this.flush();
    // The flush may have dropped a slow reader (its socket reset, onClose called).
    if (this.closed) return;
    this.closed = true;
    this.sink.end();
    this.onClose(this);
  }

  /** The socket went away. */
  disconnected(): void {
    if (this.closed) return;
    this.closed = true;
    this.outbox = undefined;
    this.onClose(this);
  }

  /** Writes the frames of this turn (FlushQueue); disconnects a reader that fell too far behind. */
  flush(): void {
    const frames = this.outbox;
    this.outbox = undefined;
    if (!frames || this.closed) return;
    this.sink.write(frames);
    if (this.sink.writableLength > this.maxBufferedBytes) {
      // A slow reader: holding its backlog would grow memory without bound.
      this.closed = true;
      this.sink.destroy();
      this.onClose(this);
    }
  }
}
