/**
 * The realtime hub of one process (docs/realtime.md): the open streams, and per project a
 * feed that reads the event log in order and hands each entry to every client of the project.
 *
 * Entries reach a feed three ways, all serialised on the feed: the writes of this process
 * (`committed`, delivered at once when they are next in line), a wake-up from another process
 * (PostgreSQL NOTIFY) and a poll every second, which alone would be enough: correctness never
 * rests on a notification. A feed delivers number `cursor + 1` next and nothing else, so
 * events leave in commit order, once (numbers are gap-free and follow commits, changes/event-log.ts).
 *
 * The hub ties together pieces with one job each: feed-registry.ts (loading and sharing feeds),
 * ordering.ts (next in line, one step at a time), gap-watch.ts, replay.ts, identity-expiry.ts,
 * trim-schedule.ts and intervals.ts.
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import type { ProjectState } from '../projects/project-registry.js';
import type { EventWakeups } from '../store/types.js';
import type { ProjectSchema, SchemaService } from '../tables/schema-service.js';
import {
  readEvents,
  readLogStart,
  readLogState,
  trimEvents,
  type ChangeFeed,
  type LoggedEvent,
} from '../changes/event-log.js';
import { deliverTo, preparePaths } from './delivery.js';
import { FeedRegistry } from './feed-registry.js';
import { GAP_GIVE_UP_MS, GapWatch } from './gap-watch.js';
import { IdentityExpiry } from './identity-expiry.js';
import { Intervals } from './intervals.js';
import { FeedQueue, nextInLine } from './ordering.js';
import type { ResolvedPaths } from './relation-paths.js';
import { replayRange, resumePoint } from './replay.js';
import { FlushQueue, RealtimeClient, type BoundIdentity, type EventSink } from './realtime-client.js';
import type { Topic } from './topics.js';
import { TrimSchedule } from './trim-schedule.js';

/** The bounds of realtime in one process (docs/realtime.md "Limits"). */
export interface RealtimeLimits {
  /** Open streams per process; past it GET answers 503 SERVICE_UNAVAILABLE. */
  readonly maxClients: number;
  /** Topics per subscription call; past it 400 VALIDATION_FAILED. */
  readonly maxSubscriptions: number;
  /** Unsent bytes a client may hold before it is disconnected as a slow reader. */
  readonly maxBufferedBytes: number;
  /** Interval of the `: ping` comment. */
  readonly pingMs: number;
  /** Interval of the log poll, token-expiry and rotation checks. */
  readonly pollMs: number;
  /** How long events are kept at least (the contract's 10 minutes). */
  readonly keepMs: number;
  /** How often a project's log is trimmed. */
  readonly trimEveryMs: number;
}

export const DEFAULT_REALTIME_LIMITS: RealtimeLimits = Object.freeze({
  maxClients: 20_000,
  maxSubscriptions: 100,
  maxBufferedBytes: 1024 * 1024,
  pingMs: 25_000,
  pollMs: 1_000,
  keepMs: 10 * 60_000,
  trimEveryMs: 60_000,
});

export interface RealtimeHubDeps {
  readonly schemas: SchemaService;
  readonly clock: Clock;
  /** The project's current state (keys, JWT secret), undefined once it is deleted. */
  readonly projectState: (projectId: string) => Promise<ProjectState | undefined>;
  readonly wakeups?: EventWakeups;
  readonly log: { warn(object: object, message: string): void; debug?(object: object, message: string): void };
  readonly limits?: Partial<RealtimeLimits>;
}

interface Feed {
  readonly projectId: string;
  cursor: number;
  readonly clients: Set<RealtimeClient>;
  /** Its steps, one at a time (ordering.ts). */
  readonly steps: FeedQueue;
  /** The project state its clients' identities were last checked against. */
  readonly identities: IdentityExpiry;
  /** The gap at `cursor + 1` the feed waits at, if any. */
  readonly gap: GapWatch;
  /** Tables (by version) where no subscriber's condition followed a relation path, as of `RealtimeHub.bindings`. */
  readonly pathless: WeakMap<object, number>;
}

const PAGE = 500;
/**
 * A new feed looks for numbers still being committed under entries written this recently. A
 * write's `created_at` is taken when its request starts, a little before its number: a
 * minute covers any write still under way (a gap older than that is a rollback).
 */
const START_RECENT_MS = 60_000;
const GAP_RETRY_MS = 5;

/** Clients, feeds and the timers that keep them honest. */
export class RealtimeHub implements ChangeFeed {
  readonly limits: RealtimeLimits;
  private readonly clients = new Map<string, RealtimeClient>();
  /** One feed per project with open streams. */
  private readonly feeds: FeedRegistry<Feed>;
  /** Projects this process wrote to, and when their logs are trimmed. */
  private readonly trims: TrimSchedule;
  private readonly timers = new Intervals();
  private closing = false;
  /** Clients with frames to write at the end of this event-loop turn. */
  private readonly flushes = new FlushQueue();
  /**
   * Grows whenever a client joins or binds, or a delivered event changes its identity: what
   * the feeds learnt about their subscribers' conditions (`Feed.pathless`) is then out of date.
   */
  private bindings = 0;

  constructor(private readonly deps: RealtimeHubDeps) {
    this.limits = Object.freeze({ ...DEFAULT_REALTIME_LIMITS, ...deps.limits });
    this.feeds = new FeedRegistry((projectId) => this.loadFeed(projectId), deps.log);
    this.trims = new TrimSchedule(deps.clock, this.limits.trimEveryMs, this.limits.keepMs);
    deps.wakeups?.onEvents((projectId) => this.wake(projectId));
    deps.wakeups?.onReconnect(() => {
      for (const projectId of this.feeds.projects()) this.wake(projectId);
    });
  }

  /** Starts the ping and poll timers (unref'd: they never keep the process alive). */
  start(): void {
    this.timers.start([
      { everyMs: this.limits.pingMs, run: () => this.pingAll() },
      { everyMs: this.limits.pollMs, run: () => void this.sweep() },
    ]);
  }

  /** Number of open streams. */
  get size(): number {
    return this.clients.size;
  }

  /** Opens a client on `sink` and sends its `connect` event. Throws like `prepare`. */
  async connect(projectId: string, sink: EventSink, lastEventId?: string): Promise<RealtimeClient> {
    await this.prepare(projectId);
    const feed = await this.feed(projectId);
    // 192 random bits: the id is all that lets a POST bind an identity to this stream.
    const id = randomBytes(24).toString('base64url');
    const client = new RealtimeClient(
      id,
      projectId,
      sink,
      this.limits.maxBufferedBytes,
      this.flushes,
      (c) => this.forget(c),
      lastEventId,
    );
    client.lastSeq = feed.cursor;
    this.clients.set(id, client);
    feed.clients.add(client);
    this.bindings++;
    client.send('connect', JSON.stringify({ client_id: id }));
    return client;
  }

  /**
   * Checks that a stream may open and loads the project's feed. Throws SERVICE_UNAVAILABLE
   * past the per-process client limit or while shutting down.
   */
  async prepare(projectId: string): Promise<void> {
    if (this.closing || this.clients.size >= this.limits.maxClients) {
      throw new AppError('SERVICE_UNAVAILABLE', {
        message: this.closing
          ? 'The server is shutting down.'
          : `This server process holds its maximum of ${this.limits.maxClients} realtime streams.`,
        suggestion: 'Retry in a few seconds, or against another server process.',
      });
    }
    await this.feed(projectId);
  }

  /** The open client with this id in this project, or undefined. */
  find(projectId: string, clientId: string): RealtimeClient | undefined {
    const client = this.clients.get(clientId);
    return client && client.projectId === projectId && !client.closed ? client : undefined;
  }

  /**
   * Taken before credentials are checked: identity ends numbered above it apply to the binding.
   * The feed's cursor, not the log's highest number: on PostgreSQL a lower number may still be
   * committing (a logout racing the POST), and ending a fresh binding by mistake only costs a
   * new POST, while missing an end would keep a dead identity bound.
   */
  async mark(projectId: string): Promise<number> {
    return (await this.feed(projectId)).cursor;
  }

  /**
   * Binds an identity and topics to a client (replacing what it had). With `since`, first
   * replays the kept events after it that the identity may see, or sends `reset` when the
   * log no longer reaches back that far (or `since` is malformed or unknown).
   */
  async bind(
    client: RealtimeClient,
    identity: BoundIdentity,
    topics: readonly Topic[],
    since: string | undefined,
  ): Promise<void> {
    // Without `since`, the new topics start after every event already committed. The log's head
    // is read before the swap: the feed (on PostgreSQL it may lag behind the log) can then hand
    // an older event only to the old topics, never to the new ones.
    const head =
      since === undefined
        ? (await readLogState((await this.deps.schemas.schema(client.projectId)).db)).lastSeq
        : undefined;
    client.identity = identity;
    client.identityVersion++;
    const binding = ++client.bindings;
    this.bindings++;
    client.subscriptions = topics.map((topic) => ({ topic }));
    // With `since`, live events wait in `queued` from the swap on, until the replay has caught
    // up: delivered meanwhile, they would move `lastSeq` past events the replay still has to send.
    client.queued = since === undefined ? undefined : [];
    if (head !== undefined) {
      client.lastSeq = Math.max(client.lastSeq, head);
      return;
    }
    if (since === undefined) return;
    // A later bind of this client (a new POST) takes over; its events are its own.
    const current = () => client.bindings === binding && client.queued !== undefined;
    const schema = await this.deps.schemas.schema(client.projectId);
    const bounds = await trimEvents(schema.db, this.trims.keepFrom());
    if (!current()) return;
    const after = resumePoint(since, bounds);
    if (after === undefined) {
      // The client reloads what it shows: as without `since`, its topics start after the log's
      // head. Events the feed queued meanwhile (it may lag behind the log) are in the reload.
      client.lastSeq = Math.max(client.lastSeq, bounds.lastSeq);
      client.send('reset', '{}');
      await this.flushQueued(client, schema);
      return;
    }
    client.lastSeq = after;
    // The replay reads what this process's feed has already passed (settled numbers, no gap in
    // flight); the feed queues everything after that for this client meanwhile.
    const feed = await this.feed(client.projectId);
    const until = feed.cursor;
    const deliver = async (event: LoggedEvent) =>
      this.deliverReplayed(client, schema, event, await preparePaths([client], schema, event, this.deps.clock));
    if (await replayRange((from, limit) => readEvents(schema.db, from, limit), after, until, deliver, current))
      await this.flushQueued(client, schema);
  }

  /** Delivers the events the feed queued for `client` while it was bound, then lets the feed deliver directly again. */
  private async flushQueued(client: RealtimeClient, schema: ProjectSchema): Promise<void> {
    while (client.queued && client.queued.length > 0) {
      const event = client.queued.shift()!;
      this.deliverReplayed(client, schema, event, await preparePaths([client], schema, event, this.deps.clock));
    }
    client.queued = undefined;
  }

  /** deliverTo for one client outside the feed; an identity it changes counts as a binding (see `resolvePaths`). */
  private deliverReplayed(
    client: RealtimeClient,
    schema: ProjectSchema,
    event: LoggedEvent,
    resolved: ResolvedPaths | undefined,
  ): void {
    const identity = client.identityVersion;
    deliverTo(client, schema, event, this.deps.clock, resolved);
    if (client.identityVersion !== identity) this.bindings++;
  }

  /** ChangeFeed: this process committed `events`; delivered at once when they are next in line. */
  committed(projectId: string, events: readonly LoggedEvent[]): void {
    if (events.length === 0) return;
    this.trims.wrote(projectId);
    this.feeds.withFeed(projectId, (feed) =>
      feed.steps.run(async () => {
        if (events[0]!.seq === feed.cursor + 1) await this.process(feed, events);
        // A gap before or inside them (another writer's number still committing): read the log.
        if (feed.cursor < events[events.length - 1]!.seq) await this.drain(feed);
      }),
    );
  }

  /** ChangeFeed: this process committed entries through `lastSeq`, written by the database; read from the log. */
  loggedThrough(projectId: string, lastSeq: number): void {
    this.trims.wrote(projectId);
    this.feeds.withFeed(projectId, (feed) =>
      feed.steps.run(async () => {
        if (feed.cursor < lastSeq) await this.drain(feed);
      }),
    );
  }

  /** Reads the project's log past the feed's cursor soon (a wake-up from another process, or the poll). */
  wake(projectId: string): void {
    this.feeds.withFeed(projectId, (feed) => feed.steps.drainOnce(() => this.drain(feed)));
  }

  /** Ends every stream (graceful shutdown: clients reconnect elsewhere) and stops the timers. */
  close(): void {
    this.closing = true;
    this.timers.stop();
    for (const client of [...this.clients.values()]) client.close();
  }

  private feed(projectId: string): Promise<Feed> {
    return this.feeds.get(projectId);
  }

  /** A project's feed, starting where the log can be read without passing a number still committing. */
  private async loadFeed(projectId: string): Promise<Feed> {
    const { db } = await this.deps.schemas.schema(projectId);
    // Not simply the log's head: on PostgreSQL a lower number may still be committing (a
    // process starting while writes go on, after a restart say), and a feed never goes back.
    const recentFrom = new Date(this.deps.clock.now() - START_RECENT_MS).toISOString();
    const start = await readLogStart(db, db.transactionHorizon !== undefined, recentFrom);
    if (start.cursor < start.head) setImmediate(() => this.wake(projectId));
    return {
      projectId,
      cursor: start.cursor,
      clients: new Set<RealtimeClient>(),
      steps: new FeedQueue((error) =>
        this.deps.log.warn(
          { err: error, project: projectId },
          'realtime: reading the event log failed; retrying on the next poll',
        ),
      ),
      identities: new IdentityExpiry(this.deps.clock),
      // At debug level: what a feed waits for, and what tests wait for instead of a pause.
      gap: new GapWatch(this.deps.clock, GAP_GIVE_UP_MS, ({ at, next }) =>
        this.deps.log.debug?.(
          { project: projectId, at, next },
          `realtime: holding event ${next} behind uncommitted ${at}`,
        ),
      ),
      pathless: new WeakMap(),
    };
  }

  private forget(client: RealtimeClient): void {
    this.clients.delete(client.id);
    this.feeds.release(client.projectId, (feed) => {
      feed.clients.delete(client);
      return feed.clients.size === 0;
    });
  }

  private async drain(feed: Feed): Promise<void> {
    const { db } = await this.deps.schemas.schema(feed.projectId);
    for (;;) {
      const events = await readEvents(db, feed.cursor, PAGE);
      if (events.length === 0) return;
      if (events[0]!.seq !== feed.cursor + 1 && !(await this.gapClosed(feed, db, events[0]!.seq))) {
        // Still committing, probably: look again very soon (nothing after the gap may go first).
        setTimeout(() => this.wake(feed.projectId), GAP_RETRY_MS).unref();
        return;
      }
      feed.gap.clear();
      await this.process(feed, events);
      if (events.length < PAGE) return;
    }
  }

  /** Whether the gap before `next` is final (gap-watch.ts); then the cursor has moved past it. */
  private async gapClosed(feed: Feed, db: ProjectSchema['db'], next: number): Promise<boolean> {
    const verdict = await feed.gap.judge(feed.cursor, next, {
      firstAfter: async (after) => (await readEvents(db, after, 1))[0]?.seq,
      ...(db.transactionHorizon && { transactionHorizon: () => db.transactionHorizon!() }),
      ...(db.hasSettled && { hasSettled: (horizon: string) => db.hasSettled!(horizon) }),
    });
    if (!verdict) return false;
    if (verdict.skipped)
      this.deps.log.warn(
        { project: feed.projectId, from: feed.cursor + 1, to: next - 1 },
        'realtime: event numbers missing for 10 s; skipping them',
      );
    feed.cursor = verdict.cursor;
    return true;
  }

  private async process(feed: Feed, events: readonly LoggedEvent[]): Promise<void> {
    const schema = await this.deps.schemas.schema(feed.projectId);
    await this.checkIdentities(feed);
    for (const event of nextInLine(feed.cursor, events)) {
      const resolved = await this.resolvePaths(feed, schema, event);
      feed.cursor = event.seq;
      this.deliverAll(feed, schema, event, resolved);
    }
  }

  /**
   * The relation paths the feed's subscribers need to judge `event` (delivery.ts). Most tables
   * have none: once a pass over every subscriber found none for a table, later events of that
   * table skip the pass until a client joins, binds or changes identity.
   */
  private async resolvePaths(
    feed: Feed,
    schema: ProjectSchema,
    event: LoggedEvent,
  ): Promise<ResolvedPaths | undefined> {
    const table = event.kind === 'row' ? schema.tables.get(event.change.table) : undefined;
    if (!table || feed.pathless.get(table) === this.bindings) return undefined;
    const bindings = this.bindings;
    const resolved = await preparePaths(feed.clients, schema, event, this.deps.clock);
    if (!resolved && bindings === this.bindings) feed.pathless.set(table, bindings);
    return resolved;
  }

  private deliverAll(feed: Feed, schema: ProjectSchema, event: LoggedEvent, resolved: ResolvedPaths | undefined): void {
    for (const client of feed.clients) {
      if (client.queued) {
        client.queued.push(event);
        continue;
      }
      const identity = client.identityVersion;
      deliverTo(client, schema, event, this.deps.clock, resolved);
      // An update of the user's own row (a changed role) may give its conditions paths.
      if (client.identityVersion !== identity) this.bindings++;
    }
  }

  /** Ends identities whose key or JWT secret was rotated out, or whose token expired (identity-expiry.ts). */
  private async checkIdentities(feed: Feed, force = false): Promise<void> {
    feed.identities.check(feed.clients, await this.deps.projectState(feed.projectId), force);
  }

  private pingAll(): void {
    for (const client of this.clients.values()) client.ping();
  }

  /** The poll: reads every watched log, checks identities, trims logs this process wrote to. */
  private async sweep(): Promise<void> {
    for (const projectId of this.feeds.projects()) {
      this.feeds.withFeed(projectId, (feed) => feed.steps.run(() => this.checkIdentities(feed, true)));
      this.wake(projectId);
    }
    const keepFrom = this.trims.keepFrom();
    for (const projectId of this.trims.due()) {
      try {
        const { db } = await this.deps.schemas.schema(projectId);
        await trimEvents(db, keepFrom);
      } catch (error) {
        this.deps.log.warn({ err: error, project: projectId }, 'realtime: trimming the event log failed');
      }
    }
  }
}
