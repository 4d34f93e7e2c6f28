/**
 * The one request core every sub-client uses: it adds the credentials (X-Api-Key, and
 * Authorization: Bearer when signed in), refreshes the access token shortly before it expires
 * and once more when the server answers that it expired, and turns every failure into a
 * RowbaseError.
 */
import { isRowbaseError, RowbaseError } from './errors.js';
import { sendJson } from './http.js';
import { sessionFromToken, type SessionState } from './session-state.js';
import type { Session } from './types.js';

/** What the core needs to know about the server and its surroundings. */
export interface RequestConfig {
  /** The server's base URL without a trailing slash. */
  readonly url: string;
  readonly project: string;
  readonly apiKey: string;
  readonly fetch: typeof fetch;
  readonly now: () => number;
}

/** One request. */
export interface RequestOptions {
  /** A JSON body. */
  readonly body?: unknown;
  readonly query?: URLSearchParams;
  readonly signal?: AbortSignal | undefined;
  /** False: never send the session's token (sign-up, sign-in, refresh, reset, verify). */
  readonly withSession?: boolean;
}

/** Answers that a fresh access token may cure: expired, or issued before a password change or a secret rotation. */
const RETRY_AFTER_REFRESH = new Set(['AUTH_TOKEN_EXPIRED', 'AUTH_INVALID_TOKEN']);

/**
 * How long before its expiry a token is refreshed (half the lifetime of the shortest token a project may issue, 60 s).
 */
const REFRESH_AHEAD_MS = 30_000;

/** Sends requests for one client; holds the refresh that concurrent calls share. */
export class Requester<U> {
  private refreshing: Promise<Session<U>> | undefined;

  constructor(
    private readonly config: RequestConfig,
    private readonly state: SessionState<U>,
  ) {}

  /** The SDK's clock (milliseconds). */
  now(): number {
    return this.config.now();
  }

  /**
   * Sends `method path` under /p/{project} and returns the decoded JSON answer (undefined for
   * 204). Throws RowbaseError: the server's code, or NETWORK_ERROR, ABORTED, INVALID_RESPONSE.
   */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    if (options.withSession === false || this.state.session === null)
      return this.send<T>(method, path, options, undefined);
    let session = this.state.session;
    if (this.expiresSoon(session)) session = await this.refresh();
    try {
      return await this.send<T>(method, path, options, session.token);
    } catch (error) {
      if (!isRowbaseError(error) || !RETRY_AFTER_REFRESH.has(error.code)) throw error;
      const current = this.state.session;
      if (current === null) throw error;
      // Another call may have refreshed while this one was under way: then its token is used, with no second refresh.
      const next = current.token !== session.token ? current : await this.refresh();
      return this.send<T>(method, path, options, next.token);
    }
  }

  /**
   * Exchanges the refresh token for a new access token and stores it. Concurrent callers share
   * one request. A refresh token the server refuses (401) signs the client out. Throws
   * RowbaseError (NOT_SIGNED_IN when there is no session).
   */
  refresh(): Promise<Session<U>> {
    this.refreshing ??= this.refreshOnce().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refreshOnce(): Promise<Session<U>> {
    const session = this.state.session;
    if (session === null) {
      throw new RowbaseError({
        status: 0,
        code: 'NOT_SIGNED_IN',
        message: 'There is no session to refresh.',
        suggestion: 'Sign in first (auth.signIn or auth.signUp).',
      });
    }
    let answer: { token: string; refresh_token?: string };
    try {
      answer = await this.send('POST', '/auth/refresh', { body: { refresh_token: session.refreshToken } }, undefined);
    } catch (error) {
      // Unknown, expired, revoked or reused: this session is over. Other failures (network, 403, 429) keep it.
      if (isRowbaseError(error) && error.status === 401 && this.state.session?.refreshToken === session.refreshToken) {
        this.state.set(null, 'SIGNED_OUT');
      }
      throw error;
    }
    const current = this.state.session;
    // Signed out (or in as someone else, or refreshed by another
    // tab) while the answer was on its way: that change wins.
    if (current?.refreshToken !== session.refreshToken) {
      if (current) return current;
      throw new RowbaseError({
        status: 0,
        code: 'NOT_SIGNED_IN',
        message: 'The client signed out while the token was being refreshed.',
        suggestion: 'Sign in again (auth.signIn).',
      });
    }
    const next = sessionFromToken(answer.token, answer.refresh_token ?? session.refreshToken, current.user, this.now());
    this.state.set(next, 'TOKEN_REFRESHED');
    return next;
  }

  private expiresSoon(session: Session<U>): boolean {
    if (session.expiresAt === null) return false;
    return session.expiresAt - this.now() <= REFRESH_AHEAD_MS;
  }

  private async send<T>(method: string, path: string, options: RequestOptions, token: string | undefined): Promise<T> {
    const { url, project, apiKey } = this.config;
    const query = options.query?.toString();
    const headers: Record<string, string> = { 'x-api-key': apiKey };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const answer = await sendJson<T>({
      fetch: this.config.fetch,
      method,
      url: `${url}/p/${encodeURIComponent(project)}${path}${query ? `?${query}` : ''}`,
      server: url,
      headers,
      body: options.body,
      signal: options.signal,
    });
    return answer.body;
  }
}
