import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { RateLimit, RouteSpec } from './routes/route.js';
import { PRODUCT_LIMITS } from './routes/table.js';

const SECONDS: Record<RateLimit['per'], number> = { second: 1, minute: 60, hour: 3600 };

/** Failed authentications one client address may make per minute before it is refused outright. */
const AUTH_FAILURES: RateLimit = { points: 30, per: 'minute' };

/** One named limit applied to a request, and where the subject stands against it. */
export interface LimitState {
  policy: 'route' | 'partner' | 'burst' | 'auth_failures';
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetMs: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The most restrictive state: the one the headers report. */
  binding: LimitState;
  all: LimitState[];
}

/**
 * The per-route limits of the spec's endpoint tables plus the overall and burst limits of its
 * Limits table, counted per subject (the partner when authenticated, else the client address).
 * Counters live in memory on the embedded default and in Redis when configured, so every replica
 * shares them.
 */
export class RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(private readonly redis: Redis | undefined, private readonly prefix = 'svc') {}

  async check(route: RouteSpec, subject: string): Promise<RateDecision> {
    const product = PRODUCT_LIMITS[route.product];
    const applied: { policy: LimitState['policy']; key: string; limit: RateLimit }[] = [
      { policy: 'burst', key: `burst:${route.product}`, limit: product.burst },
      { policy: 'partner', key: `overall:${route.product}`, limit: product.overall },
    ];
    if (route.rateLimit) applied.push({ policy: 'route', key: `route:${route.id}`, limit: route.rateLimit });

    const states = await Promise.all(
      applied.map(async ({ policy, key, limit }) => {
        let res: RateLimiterRes;
        let allowed = true;
        try {
          res = await this.limiter(key, limit).consume(subject);
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          res = rejection;
          allowed = false;
        }
        const state: LimitState = { policy, limit: limit.points, windowSeconds: SECONDS[limit.per], remaining: Math.max(0, res.remainingPoints), resetMs: res.msBeforeNext };
        return { state, allowed };
      }),
    );
    const denied = states.filter((s) => !s.allowed).map((s) => s.state);
    const all = states.map((s) => s.state);
    const pool = denied.length > 0 ? denied : all;
    const binding = pool.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetMs > a.resetMs) ? b : a));
    return { allowed: denied.length === 0, binding, all };
  }

  /**
   * Whether an address has failed authentication too often lately. Checked before the credential
   * lookup, so a flood of made-up tokens costs one counter read each, not a database query.
   */
  async authFailuresExceeded(address: string): Promise<LimitState | null> {
    const res = await this.limiter('auth-failures', AUTH_FAILURES).get(address);
    if (!res || res.consumedPoints < AUTH_FAILURES.points) return null;
    return { policy: 'auth_failures', limit: AUTH_FAILURES.points, windowSeconds: SECONDS[AUTH_FAILURES.per], remaining: 0, resetMs: res.msBeforeNext };
  }

  async recordAuthFailure(address: string): Promise<void> {
    await this.limiter('auth-failures', AUTH_FAILURES)
      .consume(address)
      .catch((rejection: unknown) => {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
      });
  }

  private limiter(key: string, limit: RateLimit): RateLimiterAbstract {
    let limiter = this.limiters.get(key);
    if (!limiter) {
      const options = { keyPrefix: `${this.prefix}:rl:${key}`, points: limit.points, duration: SECONDS[limit.per] };
      limiter = this.redis ? new RateLimiterRedis({ ...options, storeClient: this.redis }) : new RateLimiterMemory(options);
      this.limiters.set(key, limiter);
    }
    return limiter;
  }
}

/**
 * The headers of a rate-limited response: X-RateLimit-* (Limit, Remaining, and Reset as Unix epoch
 * seconds) plus the IETF RateLimit-Policy and RateLimit structured fields (delta seconds).
 */
export function rateLimitHeaders(decision: RateDecision, now = Date.now()): Record<string, string> {
  const b = decision.binding;
  const resetSeconds = Math.max(0, Math.ceil(b.resetMs / 1000));
  return {
    'x-ratelimit-limit': String(b.limit),
    'x-ratelimit-remaining': String(b.remaining),
    'x-ratelimit-reset': String(Math.ceil((now + b.resetMs) / 1000)),
    'ratelimit-policy': decision.all.map((s) => `"${s.policy}";q=${s.limit};w=${s.windowSeconds}`).join(', '),
    ratelimit: `"${b.policy}";r=${b.remaining};t=${resetSeconds}`,
  };
}
