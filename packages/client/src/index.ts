/**
 * @rowbase/client: the Rowbase client SDK for browsers and Node 20+ (no runtime dependencies).
 *
 *   const rowbase = createClient<Database>({ url, project, apiKey: 'pk_...' });
 *   await rowbase.auth.signIn({ email, password });
 *   const { data } = await rowbase.table('tasks').list({ filter: 'done = false', sort: ['-created_at'] });
 */
export { createClient, type ClientOptions, type RowbaseClient } from './client.js';
export { AuthClient, type AuthResult, type SignUpData } from './auth.js';
export type { BatchOperation, BatchResult, BatchResults } from './batch.js';
export { TableClient, type WriteWhereOptions } from './table.js';
export { RealtimeClient, type RealtimeEvent, type RealtimeHandler } from './realtime.js';
export { RowbaseError, isRowbaseError, type ClientErrorCode, type ErrorCode, type RowbaseErrorInit } from './errors.js';
export { sendJson, type JsonAnswer, type JsonRequest } from './http.js';
export { EventStreamParser, readEventStream, type ServerSentEvent } from './sse.js';
export { memoryStore, localStorageStore, type SessionStore, type StorageLike } from './session-store.js';
export type { SessionListener } from './session-state.js';
export type {
  AggregateGroup,
  AggregateOptions,
  AuthUser,
  CallOptions,
  DatabaseShape,
  ExpandBy,
  Expanded,
  ExpandOption,
  ExpandPath,
  ExpandPathOf,
  GenericRow,
  GetOptions,
  GetResult,
  ListMeta,
  ListOptions,
  ListResult,
  RealtimeTopic,
  RelationsOf,
  RelationTypes,
  Selected,
  Session,
  SessionEvent,
  SessionInfo,
  SortKey,
  TableTypes,
  WriteOptions,
  TopicRow,
  TopicTable,
  UntypedDatabase,
  WithExpand,
} from './types.js';
