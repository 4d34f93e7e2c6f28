/**
 * `client.realtime`: row changes as they commit (server docs/realtime.md). One event stream per
 * client, opened on the first `subscribe` and closed after the last unsubscribe; it reconnects
 * by itself and resumes with `since`, so no event is lost or repeated across a dropped
 * connection. When the server says the identity ended (`auth_expired`), or the session
 * changes, it subscribes again with the current session. Uses fetch (no EventSource), so it
 * runs the same in browsers and Node 20+.
 */
import type { Requester } from './request.js';
import type { SessionState } from './session-state.js';
import { readEventStream, type ServerSentEvent } from './sse.js';
import type { RealtimeTopic, TopicRow, UntypedDatabase } from './types.js';

/** A row change, or `reset`: the server could not replay what was missed; reload what you show. */
export type RealtimeEvent<R = Record<string, unknown>> =
  | { readonly action: 'create' | 'update' | 'delete'; readonly record: R; readonly id: string }
  | { readonly action: 'reset' };

/** Receives the events of one topic. */
export type RealtimeHandler<R = Record<string, unknown>> = (event: RealtimeEvent<R>) => void;

/** What the stream needs besides the request core. */
export interface RealtimeConfig {
  readonly url: string;
  readonly project: string;
  readonly fetch: typeof fetch;
  /** Called with errors the stream recovers from by itself (default: none). */
  readonly onError?: (error: unknown) => void;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;

/**
 * The realtime sub-client. `D` is the `Database` of `createClient<Database>`: topics must name
 * one of its tables, and events carry that table's `Row`.
 */
export class RealtimeClient<D = UntypedDatabase> {
  private readonly handlers = new Map<string, Set<RealtimeHandler<never>>>();
  private controller: AbortController | undefined;
  private clientId: string | undefined;
  private lastId: string | undefined;
  /** Set when the next call must replay what was missed (a new stream, an ended identity). */
  private resume = false;
  private retryMs = RETRY_MIN_MS;
  private posting: Promise<void> = Promise.resolve();

  constructor(
    private readonly requester: Requester<unknown>,
    private readonly config: RealtimeConfig,
    state: SessionState<unknown>,
  ) {
    // A new session (sign-in, sign-out, refresh) is a new identity for the stream.
    state.onChange(() => this.resubscribe());
  }

  /**
   * Calls `handler` with every change of `topic` ("table", "table/ROW_ID" or
   * "table?filter=<url-encoded filter>") the current session may see, its `record` typed as
   * that table's row. Returns the function that stops it.
   */
  subscribe<T extends RealtimeTopic<D>>(topic: T, handler: RealtimeHandler<TopicRow<D, T>>): () => void {
    const existing = this.handlers.get(topic);
    const isNew = existing === undefined;
    const set = existing ?? new Set();
    if (isNew) this.handlers.set(topic, set);
    set.add(handler as RealtimeHandler<never>);
    if (!this.controller) this.open();
    else if (isNew) this.resubscribe();
    return () => {
      set.delete(handler as RealtimeHandler<never>);
      if (set.size > 0 || this.handlers.get(topic) !== set) return;
      this.handlers.delete(topic);
      if (this.handlers.size === 0) this.close();
      else this.resubscribe();
    };
  }

  /** Closes the stream and forgets every subscription. */
  close(): void {
    this.handlers.clear();
    this.controller?.abort();
    this.controller = undefined;
    this.clientId = undefined;
    this.lastId = undefined;
  }

  private open(): void {
    const controller = new AbortController();
    this.controller = controller;
    void this.read(controller).then(
      () => this.reconnect(controller),
      (error: unknown) => {
        if (!controller.signal.aborted) this.config.onError?.(error);
        this.reconnect(controller);
      },
    );
  }

  private reconnect(controller: AbortController): void {
    if (this.controller !== controller || controller.signal.aborted) return;
    this.clientId = undefined;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    setTimeout(() => {
      if (this.controller === controller && this.handlers.size > 0) this.open();
    }, wait);
  }

  private async read(controller: AbortController): Promise<void> {
    const { url, project } = this.config;
    const response = await this.config.fetch(`${url}/p/${encodeURIComponent(project)}/realtime`, {
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    if (!response.ok || !response.body) throw new Error(`realtime stream: HTTP ${response.status}`);
    await readEventStream(response.body, (event) => this.dispatch(event));
  }

  private dispatch({ event, data, id }: ServerSentEvent): void {
    if (event === 'connect') {
      this.clientId = (JSON.parse(data) as { client_id: string }).client_id;
      this.retryMs = RETRY_MIN_MS;
      this.resume = true;
      this.resubscribe();
      return;
    }
    if (event === 'reset') {
      for (const set of this.handlers.values()) for (const handler of set) handler({ action: 'reset' } as never);
      return;
    }
    if (event === 'auth_expired') {
      // Refresh the session if there is one, then bind again; `since` replays what was missed meanwhile.
      this.resume = true;
      void this.requester
        .refresh()
        .catch(() => undefined)
        .finally(() => this.resubscribe());
      return;
    }
    if (id !== undefined) this.lastId = id;
    const set = this.handlers.get(event);
    if (!set) return;
    const parsed = JSON.parse(data) as { action: 'create' | 'update' | 'delete'; record: unknown };
    for (const handler of set) handler({ action: parsed.action, record: parsed.record, id: id ?? '' } as never);
  }

  /** Sends the current topics (one call at a time, the latest state wins). */
  private resubscribe(): void {
    this.posting = this.posting.then(async () => {
      const clientId = this.clientId;
      if (clientId === undefined) return;
      // Only after a gap: on a live stream, events in flight would be replayed twice.
      const since = this.resume ? this.lastId : undefined;
      this.resume = false;
      try {
        await this.requester.request('POST', '/realtime', {
          body: {
            client_id: clientId,
            subscriptions: [...this.handlers.keys()],
            ...(since !== undefined && { since }),
          },
        });
      } catch (error) {
        this.config.onError?.(error);
      }
    });
  }
}
