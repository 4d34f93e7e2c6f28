/**
 * The auth endpoints' rate-limit policy (contract §5): per client address on each limited
 * endpoint, per email for failed logins and for sent mails. Limits come from the project's
 * `rate_limits` setting; `RATE_LIMITS=off` turns every check into a no-op.
 */
import { addressBucket } from '../lib/address-bucket.js';
import { AppError } from '../errors/app-error.js';
import type { ProjectState } from '../projects/project-registry.js';
import type { RateLimiter } from './rate-limiter.js';

/** The endpoints limited per client address. */
export type LimitedEndpoint =
  | 'signup'
  | 'login'
  | 'change-password'
  | 'forgot-password'
  | 'reset-password'
  | 'verify'
  | 'resend-verification';

const MINUTE = 60;
const FAILED_LOGIN_WINDOW = 15 * 60;
const MAIL_WINDOW = 60 * 60;

/** Applies the policy through a RateLimiter port. */
export class AuthRateLimits {
  private readonly enabled: boolean;

  /** `enabled` false (RATE_LIMITS=off) lets every request through. */
  constructor(
    private readonly limiter: RateLimiter,
    { enabled }: { readonly enabled: boolean },
  ) {
    this.enabled = enabled;
  }

  /** Counts a request from `address` to `endpoint`. Throws RATE_LIMITED with Retry-After. */
  async checkAddress(state: ProjectState, endpoint: LimitedEndpoint, address: string): Promise<void> {
    if (!this.enabled) return;
    const key = `addr|${state.project.id}|${endpoint}|${addressBucket(address)}`;
    const decision = await this.limiter.consume(key, state.settings.rate_limits.per_address_per_minute, MINUTE);
    if (!decision.allowed)
      throw rateLimited(decision.retryAfterSeconds, `Too many ${endpoint} requests from this address.`);
  }

  /**
   * Takes one failed-login slot of `email` before the password is checked, so that parallel
   * guesses cannot overshoot the limit; `refundLoginAttempt` gives it back when the password
   * was right. Unknown emails are counted exactly like known ones. Throws RATE_LIMITED.
   */
  async takeLoginAttempt(state: ProjectState, email: string): Promise<void> {
    if (!this.enabled) return;
    const decision = await this.limiter.consume(
      loginKey(state, email),
      state.settings.rate_limits.failed_logins_per_email,
      FAILED_LOGIN_WINDOW,
    );
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds, 'Too many failed sign-ins for this email.');
  }

  /** Gives back the slot taken by `takeLoginAttempt` (the attempt did not fail). */
  async refundLoginAttempt(state: ProjectState, email: string): Promise<void> {
    if (!this.enabled) return;
    await this.limiter.refund(loginKey(state, email));
  }

  /**
   * Counts one mail (reset or verification) to `email`. Returns the Retry-After seconds
   * when the hourly limit is reached (nothing may be sent), else 0.
   */
  async takeMail(state: ProjectState, email: string): Promise<number> {
    if (!this.enabled) return 0;
    const key = `mail|${state.project.id}|${email}`;
    const decision = await this.limiter.consume(key, state.settings.rate_limits.mails_per_email_per_hour, MAIL_WINDOW);
    return decision.allowed ? 0 : decision.retryAfterSeconds;
  }
}

/** A RATE_LIMITED error carrying Retry-After. */
export function rateLimited(retryAfterSeconds: number, message: string): AppError {
  return new AppError('RATE_LIMITED', {
    message,
    suggestion: `Wait ${retryAfterSeconds} seconds (the Retry-After header), then retry.`,
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}

function loginKey(state: ProjectState, email: string): string {
  return `login|${state.project.id}|${email}`;
}
