/**
 * The data API's rate-limit policy (contract §18): the project setting `data_rate_limits`
 * counts reads and writes per minute, per client address or per caller, through the same
 * RateLimiter port (memory, PostgreSQL or Redis) as the auth limits. The admin key, the
 * platform key and dashboard tokens (admin callers) are never limited; `RATE_LIMITS=off`
 * turns every check off.
 */
import { addressBucket } from '../lib/address-bucket.js';
import type { ProjectState } from '../projects/project-registry.js';
import type { DataRateLimitSettings } from '../projects/settings.js';
import type { Caller } from '../tables/caller.js';
import { rateLimited } from './auth-rate-limits.js';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';

/** What a request does to the data: GET and HEAD read; POST, PATCH and DELETE write. */
export type DataAccess = 'read' | 'write';

const MINUTE = 60;

/** Applies `data_rate_limits` through a RateLimiter port. */
export class DataRateLimits {
  private readonly enabled: boolean;

  /** `enabled` false (RATE_LIMITS=off) lets every request through. */
  constructor(
    private readonly limiter: RateLimiter,
    { enabled }: { readonly enabled: boolean },
  ) {
    this.enabled = enabled;
  }

  /**
   * Counts one request, once the caller is known and before any database work. Returns
   * undefined when no limit applies (no setting, no limit of this kind, an admin caller) or the
   * limiter decided at once (memory), so the usual request stays synchronous; then it throws
   * RATE_LIMITED (Retry-After) past the limit. Otherwise a promise that rejects so.
   */
  check(state: ProjectState, access: DataAccess, caller: Caller, address: string): Promise<void> | undefined {
    const settings = state.settings.data_rate_limits;
    if (!this.enabled || settings === null || caller.kind === 'admin') return undefined;
    const limit = access === 'read' ? settings.reads_per_minute : settings.writes_per_minute;
    if (limit === null) return undefined;
    const key = `data|${state.project.id}|${access}|${bucketOf(settings, caller, address)}`;
    const refuse = (decision: RateLimitDecision): void => {
      if (!decision.allowed)
        throw rateLimited(decision.retryAfterSeconds, `Too many data API ${access}s ${whoOf(settings, caller)}.`);
    };
    // The memory limiter answers at once: a request under its limit stays synchronous.
    const now = this.limiter.consumeNow?.(key, limit, MINUTE);
    if (now !== undefined) {
      refuse(now);
      return undefined;
    }
    return this.limiter.consume(key, limit, MINUTE).then(refuse);
  }
}

/**
 * Whom a request counts against: the client address, or with `per: "caller"` the signed-in
 * user (by id), else the publishable key (by its record id, never the key), else the address.
 */
function bucketOf(settings: DataRateLimitSettings, caller: Caller, address: string): string {
  if (settings.per === 'caller') {
    if (caller.kind === 'user') return `user|${String(caller.user.id)}`;
    if (caller.kind === 'public' && caller.keyId !== undefined) return `key|${caller.keyId}`;
  }
  return `addr|${addressBucket(address)}`;
}

function whoOf(settings: DataRateLimitSettings, caller: Caller): string {
  if (settings.per === 'caller' && caller.kind === 'user') return 'by this user';
  if (settings.per === 'caller' && caller.kind === 'public') return 'with this publishable key';
  return 'from this address';
}
