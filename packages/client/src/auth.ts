/**
 * `client.auth`: email-and-password sign-in against /p/{project}/auth/ and the session that
 * results from it.
 */
import { isRowbaseError } from './errors.js';
import type { Requester } from './request.js';
import { sessionFromToken, type SessionListener, type SessionState } from './session-state.js';
import type { CallOptions, Session, SessionInfo } from './types.js';

/** What sign-up and sign-in return: the user and the new session (already stored). */
export interface AuthResult<U> {
  user: U;
  session: Session<U>;
}

/** The body of a sign-up: email, password and the auth table's custom columns. */
export type SignUpData = { email: string; password: string } & Record<string, unknown>;

interface TokenAnswer<U> {
  token: string;
  refresh_token: string;
  user: U;
}

/** Sign-up, sign-in, tokens, passwords and email verification for one client. */
export class AuthClient<U> {
  constructor(
    private readonly requester: Requester<U>,
    private readonly state: SessionState<U>,
  ) {}

  /** The current session (token, refresh token, expiry, user), or null when signed out. */
  get session(): Session<U> | null {
    return this.state.session;
  }

  /** The signed-in user as last seen, or null. */
  get user(): U | null {
    return this.state.session?.user ?? null;
  }

  /**
   * Calls `listener(session, event)` on every change of the session: SIGNED_IN, SIGNED_OUT,
   * TOKEN_REFRESHED, USER_UPDATED. Returns the function that stops it.
   */
  onChange(listener: SessionListener<U>): () => void {
    return this.state.onChange(listener);
  }

  /**
   * Creates a user (POST /auth/signup) and signs in as them. Throws
   * RowbaseError (AUTH_EMAIL_TAKEN, VALIDATION_PASSWORD, FORBIDDEN, ...).
   */
  async signUp(data: SignUpData, options: CallOptions = {}): Promise<AuthResult<U>> {
    const answer = await this.requester.request<TokenAnswer<U>>('POST', '/auth/signup', {
      body: data,
      signal: options.signal,
      withSession: false,
    });
    return this.start(answer);
  }

  /**
   * Signs in (POST /auth/login). Throws RowbaseError
   * (AUTH_INVALID_CREDENTIALS, AUTH_EMAIL_NOT_VERIFIED, RATE_LIMITED, ...).
   */
  async signIn(credentials: { email: string; password: string }, options: CallOptions = {}): Promise<AuthResult<U>> {
    const answer = await this.requester.request<TokenAnswer<U>>('POST', '/auth/login', {
      body: credentials,
      signal: options.signal,
      withSession: false,
    });
    return this.start(answer);
  }

  /**
   * Ends the session on the server (POST /auth/logout) and forgets it here. The local session
   * is cleared whatever happens; a 401 (the session had already ended) counts as success, any
   * other failure is thrown.
   */
  async signOut(options: CallOptions & { scope?: 'local' | 'others' | 'global' } = {}): Promise<void> {
    if (this.state.session === null) return;
    // scope 'others' ends every other session of the user and keeps this one signed in.
    if (options.scope === 'others') {
      await this.requester.request('POST', '/auth/logout', {
        query: new URLSearchParams({ scope: 'others' }),
        signal: options.signal,
      });
      return;
    }
    try {
      await this.requester.request('POST', '/auth/logout', {
        ...(options.scope !== undefined && { query: new URLSearchParams({ scope: options.scope }) }),
        signal: options.signal,
      });
    } catch (error) {
      if (!(isRowbaseError(error) && error.status === 401)) throw error;
    } finally {
      if (this.state.session !== null) this.state.set(null, 'SIGNED_OUT');
    }
  }

  /**
   * Gets a new access token now (POST /auth/refresh). The SDK does this by itself before the
   * token expires, so calling it is rarely needed. Throws RowbaseError (NOT_SIGNED_IN,
   * AUTH_INVALID_REFRESH_TOKEN, which also signs out, ...).
   */
  refresh(): Promise<Session<U>> {
    return this.requester.refresh();
  }

  /**
   * The signed-in user's live sessions (GET /auth/sessions); `current`
   * marks this client's. Throws RowbaseError (NOT_SIGNED_IN, ...).
   */
  async sessions(options: CallOptions = {}): Promise<SessionInfo[]> {
    const answer = await this.requester.request<{ data: SessionInfo[] }>('GET', '/auth/sessions', {
      signal: options.signal,
    });
    return answer.data;
  }

  /**
   * Ends one of the signed-in user's sessions (DELETE /auth/sessions/{id}),
   * e.g. a lost device. Throws RowbaseError (ROW_NOT_FOUND, ...).
   */
  async endSession(id: string, options: CallOptions = {}): Promise<void> {
    await this.requester.request('DELETE', `/auth/sessions/${encodeURIComponent(id)}`, { signal: options.signal });
  }

  /** Reads the signed-in user from the server (GET /auth/me) and updates the session's copy. Throws RowbaseError. */
  async me(options: CallOptions = {}): Promise<U> {
    const { user } = await this.requester.request<{ user: U }>('GET', '/auth/me', { signal: options.signal });
    this.updateUser(user);
    return user;
  }

  /**
   * Changes the password (POST /auth/change-password) and keeps the session going with the new
   * access token the server returns. Throws RowbaseError (AUTH_INVALID_CREDENTIALS, VALIDATION_PASSWORD, ...).
   */
  async changePassword(currentPassword: string, newPassword: string, options: CallOptions = {}): Promise<U> {
    const answer = await this.requester.request<{ token: string; user: U }>('POST', '/auth/change-password', {
      body: { current_password: currentPassword, new_password: newPassword },
      signal: options.signal,
    });
    const session = this.state.session;
    if (session !== null)
      this.state.set(
        sessionFromToken(answer.token, session.refreshToken, answer.user, this.requester.now()),
        'USER_UPDATED',
      );
    return answer.user;
  }

  /**
   * Asks for a password-reset mail (POST /auth/forgot-password); the link goes to `redirectUrl`
   * with `token=` appended. Resolves with the server's message whether or not the email exists.
   * Throws RowbaseError (VALIDATION_REDIRECT_URL when the origin is not allowed, ...).
   */
  async forgotPassword(email: string, redirectUrl: string, options: CallOptions = {}): Promise<string> {
    const answer = await this.requester.request<{ message: string }>('POST', '/auth/forgot-password', {
      body: { email, redirect_url: redirectUrl },
      signal: options.signal,
      withSession: false,
    });
    return answer.message;
  }

  /**
   * Sets a new password with the token from the reset mail (POST
   * /auth/reset-password). Throws RowbaseError (AUTH_INVALID_ONE_TIME_TOKEN, ...).
   */
  async resetPassword(token: string, newPassword: string, options: CallOptions = {}): Promise<string> {
    const answer = await this.requester.request<{ message: string }>('POST', '/auth/reset-password', {
      body: { token, new_password: newPassword },
      signal: options.signal,
      withSession: false,
    });
    return answer.message;
  }

  /**
   * Verifies an email with the token from the verification mail (GET /auth/verify). When that
   * is the signed-in user, the session's copy is updated. Throws RowbaseError (AUTH_INVALID_ONE_TIME_TOKEN, ...).
   */
  async verify(token: string, options: CallOptions = {}): Promise<U> {
    const answer = await this.requester.request<{ message: string; user: U }>('GET', '/auth/verify', {
      query: new URLSearchParams({ token }),
      signal: options.signal,
      withSession: false,
    });
    const current = this.state.session?.user as { id?: unknown } | null | undefined;
    if (current && current.id === (answer.user as { id?: unknown }).id) this.updateUser(answer.user);
    return answer.user;
  }

  /**
   * Sends the signed-in user a new verification mail (POST /auth/resend-verification).
   * Throws RowbaseError (AUTH_ALREADY_VERIFIED, RATE_LIMITED, ...).
   */
  async resendVerification(options: CallOptions = {}): Promise<string> {
    const answer = await this.requester.request<{ message: string }>('POST', '/auth/resend-verification', {
      signal: options.signal,
    });
    return answer.message;
  }

  private start(answer: TokenAnswer<U>): AuthResult<U> {
    const session = sessionFromToken(answer.token, answer.refresh_token, answer.user, this.requester.now());
    this.state.set(session, 'SIGNED_IN');
    return { user: answer.user, session };
  }

  private updateUser(user: U): void {
    const session = this.state.session;
    // Listeners hear only real changes (a UI re-renders on each event).
    if (session !== null && JSON.stringify(session.user) !== JSON.stringify(user))
      this.state.set({ ...session, user }, 'USER_UPDATED');
  }
}
