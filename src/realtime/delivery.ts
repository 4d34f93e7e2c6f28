/**
 * Delivery of one logged event to one client, under the table's rules for the client's
 * identity as it is at that moment (contract §11): the list rule for table and filtered
 * topics, the view rule for row topics; create and update judged on the new row, delete on
 * the row as it was. Rules and filters are compiled once per identity and table version into
 * in-memory predicates (row-predicate.ts); rules that read only the row and `@request.auth`
 * need no database, and relation paths are resolved once per event for all subscribers
 * (relation-paths.ts).
 */
import { isoNow, type Clock } from '../lib/clock.js';
import { hasPaths } from '../query/expr-walk.js';
import { sql, type Expr } from '../query/sql-tree.js';
import type { Caller } from '../tables/caller.js';
import type { CompiledTable } from '../tables/compiled-table.js';
import { ruleCondition } from '../tables/row-access.js';
import type { ProjectSchema } from '../tables/schema-service.js';
import type { IdentityChange, LoggedEvent, RowChange } from '../changes/event-log.js';
import { resolvePaths, substitutePaths, type ResolvedPaths } from './relation-paths.js';
import type { RealtimeClient, Subscription } from './realtime-client.js';
import { compilePredicate, type RowPredicate } from './row-predicate.js';
import { eventFrame, type SseFrame } from './sse-frame.js';
import { topicFilter } from './topics.js';

const NEVER: RowPredicate = () => false;
// An event's frame is the same bytes for every client of a topic: made once per event and topic.
const frames = new WeakMap<LoggedEvent, { readonly data: string; readonly byTopic: Map<string, SseFrame> }>();

/**
 * Sends `event` to `client` on every subscription it matches, or ends the client's identity
 * when the event ends it. Events at or below the client's last number are skipped (a replay
 * and live delivery overlap), so each is handled once per client.
 */
export function deliverTo(
  client: RealtimeClient,
  schema: ProjectSchema,
  event: LoggedEvent,
  clock: Clock,
  resolved?: ResolvedPaths,
): void {
  if (event.seq <= client.lastSeq) return;
  client.lastSeq = event.seq;
  const identity = client.identity;
  if (!identity || client.closed) return;
  if (identity.expiresAtMs !== undefined && clock.now() >= identity.expiresAtMs) {
    client.expire();
    return;
  }
  const caller = identity.caller;
  if (event.kind === 'identity') {
    if (event.seq > identity.boundAfterSeq && ends(event.change, caller)) client.expire();
    return;
  }
  const { change } = event;
  if (
    caller.kind === 'user' &&
    change.table === schema.authTable?.name &&
    change.record.id === caller.user.id &&
    event.seq > identity.boundAfterSeq
  ) {
    if (change.action === 'delete') {
      client.expire();
      return;
    }
    // Rules see the user as they are now (a changed role counts from this event on).
    identity.caller = { ...caller, user: change.record };
    client.identityVersion++;
  }
  const table = schema.tables.get(change.table);
  if (!table) return;
  for (const subscription of client.subscriptions) {
    const { topic } = subscription;
    if (topic.table !== change.table) continue;
    if (topic.rowId !== undefined && topic.rowId !== change.record.id) continue;
    const judged = conditionOf(subscription, table, identity.caller, client.identityVersion, clock);
    const test =
      judged.condition && judged.paths
        ? compilePredicate(substitutePaths(judged.condition, change.record, resolved ?? new Map()))
        : judged.test;
    if (!test(change.record)) continue;
    client.sendFrame(frameOf(event, change, topic.name));
    if (client.closed) return;
  }
}

/** The frame of `event` under `topic`, built for its first subscriber. */
function frameOf(event: LoggedEvent, change: RowChange, topic: string): SseFrame {
  let built = frames.get(event);
  if (!built) {
    built = { data: JSON.stringify({ action: change.action, record: change.record }), byTopic: new Map() };
    frames.set(event, built);
  }
  let frame = built.byTopic.get(topic);
  if (!frame) {
    frame = eventFrame(topic, built.data, event.seq);
    built.byTopic.set(topic, frame);
  }
  return frame;
}

/** True when the identity change ends `caller`'s identity. */
function ends(change: IdentityChange, caller: Caller): boolean {
  if (caller.kind !== 'user') return false;
  if (change.all) return true;
  if (change.session !== undefined) return change.session === caller.sessionId;
  if (change.user !== undefined) return change.user === caller.user.id && change.keep_session !== caller.sessionId;
  return false;
}

/**
 * Resolves, once for all `clients`, the relation paths their conditions need to judge `event`
 * (one lookup per distinct path and hop, relation-paths.ts); undefined when none has a path.
 */
export async function preparePaths(
  clients: Iterable<RealtimeClient>,
  schema: ProjectSchema,
  event: LoggedEvent,
  clock: Clock,
): Promise<ResolvedPaths | undefined> {
  if (event.kind !== 'row') return undefined;
  const table = schema.tables.get(event.change.table);
  if (!table) return undefined;
  let resolved: ResolvedPaths | undefined;
  for (const client of clients) {
    const identity = client.identity;
    if (!identity || client.closed) continue;
    for (const subscription of client.subscriptions) {
      if (subscription.topic.table !== table.name) continue;
      const judged = conditionOf(subscription, table, identity.caller, client.identityVersion, clock);
      if (!judged.paths || !judged.condition) continue;
      resolved ??= new Map();
      await resolvePaths(schema.db, judged.condition, event.change.record, resolved);
    }
  }
  return resolved;
}

/** The subscription's condition and in-memory predicate for this identity and table version, compiled on first use. */
function conditionOf(
  subscription: Subscription,
  table: CompiledTable,
  caller: Caller,
  identity: number,
  clock: Clock,
): { test: RowPredicate; condition: Expr | undefined; paths: boolean } {
  const cached = subscription.cache;
  if (cached && cached.table === table && cached.identity === identity) return cached;
  const now = isoNow(clock);
  let judged: { test: RowPredicate; condition: Expr | undefined; paths: boolean };
  try {
    const rule = ruleCondition(table, subscription.topic.operation, caller, now);
    const filter = topicFilter(subscription.topic.query, table, now);
    const condition = rule && filter ? sql.and(rule, filter) : (rule ?? filter);
    judged = { test: compilePredicate(condition), condition, paths: hasPaths(condition) };
  } catch {
    // The rule was locked or the filter's column dropped since the subscription: nothing matches.
    judged = { test: NEVER, condition: undefined, paths: false };
  }
  // A condition with @now is compiled again for each event: "now" moves.
  if (!usesNow(subscription, table)) subscription.cache = { table, identity, ...judged };
  return judged;
}

function usesNow(subscription: Subscription, table: CompiledTable): boolean {
  const rule = table.definition.rules[subscription.topic.operation];
  if (rule?.includes('@now')) return true;
  return Object.values(subscription.topic.query ?? {}).some((value) => value.includes('@now'));
}
