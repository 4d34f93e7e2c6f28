/**
 * One realtime client: an open event stream, its id, the identity bound by the last
 * subscription call and its topics. Writes Server-Sent Events; a client whose unsent bytes
 * outgrow the bound (a slow reader) is disconnected and resumes with `since`.
 */
import type { ProjectState } from '../projects/project-registry.js';
import type { Caller } from '../tables/caller.js';
import type { Expr } from '../query/sql-tree.js';
import type { RowPredicate } from './row-predicate.js';
import type { Topic } from './topics.js';
import type { LoggedEvent } from './event-log.js';

/** The socket side of a stream (a Node ServerResponse fits). */
export interface EventSink {
  write(chunk: string): unknown;
  end(): void;
  destroy(): void;
  readonly writableLength: number;
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
  cache?: { readonly table: object; readonly identity: number; readonly test: RowPredicate; readonly condition: Expr | undefined; readonly paths: boolean };
}

/** One connected client of one project. */
export class RealtimeClient {
  subscriptions: Subscription[] = [];
  identity: BoundIdentity | undefined;
  /** Bumped whenever `identity` changes, so cached predicates are rebuilt. */
  identityVersion = 0;
  /** The last event number sent or skipped: nothing at or below it is sent again. */
  lastSeq = 0;
  /** While a `since` replay reads the log, live events wait here. */
  queued: LoggedEvent[] | undefined;
  /** `Last-Event-ID` of the GET that opened the stream: the default `since` of the next POST. */
  readonly lastEventId: string | undefined;
  closed = false;

  constructor(
    readonly id: string,
    readonly projectId: string,
    private readonly sink: EventSink,
    private readonly maxBufferedBytes: number,
    private readonly onClose: (client: RealtimeClient) => void,
    lastEventId?: string,
  ) {
    this.lastEventId = lastEventId;
  }

  /** Sends one event; disconnects a reader that fell too far behind. */
  send(event: string, data: string, id?: number): void {
    this.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`);
  }

  /** A comment line that keeps proxies from closing an idle stream. */
  ping(): void {
    this.write(': ping\n\n');
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
    this.closed = true;
    this.sink.end();
    this.onClose(this);
  }

  /** The socket went away. */
  disconnected(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
  }

  private write(text: string): void {
    if (this.closed) return;
    this.sink.write(text);
    if (this.sink.writableLength > this.maxBufferedBytes) {
      // A slow reader: holding its backlog would grow memory without bound.
      this.closed = true;
      this.sink.destroy();
      this.onClose(this);
    }
  }
}
