/**
 * `createClient`: one client per project, composed of small sub-clients (`auth`, `table(name)`)
 * that share one request core and one session.
 */
import { AuthClient } from './auth.js';
import { sendBatch, type BatchOperation, type BatchResults } from './batch.js';
import { RowbaseError } from './errors.js';
import { Requester } from './request.js';
import { memoryStore, type SessionStore } from './session-store.js';
import { SessionState } from './session-state.js';
import { TableClient } from './table.js';
import { RealtimeClient } from './realtime.js';
import type { AuthUser, CallOptions, DatabaseShape, UntypedDatabase } from './types.js';

/** Options of `createClient`. */
export interface ClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8080` (what the server calls PUBLIC_URL). */
  url: string;
  /** The project id. */
  project: string;
  /** The project's publishable key (`pk_...`). Admin keys (`sk_...`) are refused: see the README. */
  apiKey: string;
  /** Where the session is kept: `memoryStore()` (default) or `localStorageStore()`. */
  store?: SessionStore;
  /** The fetch to use (default: the global one), e.g. one with a proxy agent in Node. */
  fetch?: typeof fetch;
  /** The clock for refreshing ahead of expiry, in milliseconds (default `Date.now`). */
  now?: () => number;
}

/** A client of one Rowbase project. */
export interface RowbaseClient<D extends DatabaseShape<D>, U> {
  /** Sign-up, sign-in, the session and password flows. */
  readonly auth: AuthClient<U>;
  /** The data API of one table. */
  table<N extends keyof D & string>(name: N): TableClient<D[N]>;
  /** Row changes as they commit: `realtime.subscribe(topic, handler)`, reconnecting and resuming by itself. */
  readonly realtime: RealtimeClient<D>;
  /**
   * Creates, changes and deletes rows of several tables in one transaction (POST /api/batch, at
   * most 1,000 operations); returns each operation's `{status, body}` in order. Throws the first
   * failing operation's RowbaseError (message `operations[N]: ...`); then nothing is written.
   */
  batch<const Ops extends readonly BatchOperation<D>[]>(
    operations: Ops,
    options?: CallOptions,
  ): Promise<BatchResults<D, Ops>>;
}

/**
 * Creates a client. `D` is the `Database` type printed by `rowbase types` (without it, every
 * table and column is accepted and typed `unknown`); `U` is the signed-in user's type. Throws
 * RowbaseError INVALID_CLIENT_OPTIONS for a malformed URL, an empty project, or an admin key.
 */
export function createClient<D extends DatabaseShape<D> = UntypedDatabase, U = AuthUser>(
  options: ClientOptions,
): RowbaseClient<D, U> {
  const url = checkOptions(options);
  const state = new SessionState<U>(options.store ?? memoryStore());
  const requester = new Requester<U>(
    {
      url,
      project: options.project,
      apiKey: options.apiKey,
      // Looked up at call time and called unbound from an object, which browsers refuse ("Illegal invocation").
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      now: options.now ?? (() => Date.now()),
    },
    state,
  );
  const auth = new AuthClient<U>(requester, state);
  const realtime = new RealtimeClient<D>(
    requester as Requester<unknown>,
    { url, project: options.project, fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)) },
    state as SessionState<unknown>,
  );
  return {
    auth,
    realtime,
    table: <N extends keyof D & string>(name: N) => new TableClient<D[N]>(requester as Requester<unknown>, name),
    batch: (operations, options) => sendBatch(requester as Requester<unknown>, operations, options),
  };
}

function checkOptions(options: ClientOptions): string {
  const refuse = (message: string, suggestion: string) =>
    new RowbaseError({ status: 0, code: 'INVALID_CLIENT_OPTIONS', message, suggestion });
  let parsed: URL;
  try {
    parsed = new URL(options.url);
  } catch (cause) {
    throw new RowbaseError({
      status: 0,
      code: 'INVALID_CLIENT_OPTIONS',
      message: `url is not an absolute URL: ${String(options.url)}`,
      suggestion: 'Pass the server base URL, e.g. http://127.0.0.1:8080.',
      cause,
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw refuse(
      `url must be http or https, not ${parsed.protocol}`,
      'Pass the server base URL, e.g. https://rowbase.example.com.',
    );
  if (typeof options.project !== 'string' || options.project === '')
    throw refuse('project is missing.', 'Pass the project id, e.g. project: "demo".');
  if (typeof options.apiKey !== 'string' || options.apiKey === '')
    throw refuse('apiKey is missing.', "Pass the project's publishable key (pk_...).");
  if (options.apiKey.startsWith('sk_')) {
    // An admin key skips every rule; shipped in a page it is anyone's.
    // The server never lets one cross origins (contract §8).
    throw refuse(
      'apiKey is an admin key (sk_...); the SDK only takes the publishable key.',
      'Pass the publishable key (pk_...); keep the admin key on your server and call the admin API with it directly.',
    );
  }
  return options.url.replace(/\/+$/, '');
}
