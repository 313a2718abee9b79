import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { DomainError } from '../errors.js';
import { DependencyUnavailable } from '../dependency-health.js';
import { CAPABILITIES, PRODUCT_LIMITS, windowSeconds, type Capability, type Product, type RateLimit } from './capabilities.js';

/** Failed authentications one client address may make per minute before unknown credentials from it are refused. */
export const AUTH_FAILURES: RateLimit = { points: 30, per: 'minute' };
/** Failed client authentications per OAuth client_id per minute before that client is refused. */
export const CLIENT_AUTH_FAILURES: RateLimit = { points: 10, per: 'minute' };
/** How long a client (or client secret) that obtained a token stays known valid. */
const KNOWN_VALID: RateLimit = { points: 1_000_000, per: 'hour' };

/** One named limit applied to a request, and where the subject stands against it. */
export interface LimitState {
  policy: 'route' | 'partner' | 'burst' | 'auth_failures' | 'client_auth_failures';
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

/** One use of a capability by one subject, costing `points` (1 per REST call, 1 per GraphQL field occurrence). */
export interface CapabilityUse {
  capability: Pick<Capability, 'id' | 'product' | 'limit'>;
  /** `partner:<gpid>`, `ip:<address>` or `client:<client_id>`. */
  subject: string;
  points: number;
}

/** Where one subject stands against one counter, read without spending anything. */
export interface CounterUsage {
  policy: 'route' | 'partner' | 'burst';
  /** The capability of a route limit, or the product of an overall or burst limit. */
  name: string;
  product: Product;
  limit: number;
  windowSeconds: number;
  /** Points spent in the current window, at most the limit (refused attempts beyond it are not counted). */
  used: number;
  remaining: number;
  /** Milliseconds until the window resets; 0 for a counter with nothing spent. */
  resetMs: number;
}

/** Reads a subject's counters (the partner subgraph's usage view); RateLimiter is one. */
export interface RateLimitUsageReader {
  usage(subject: string): Promise<CounterUsage[]>;
}

/** The subject a request's counters are kept for: its partner when authenticated, else its address. */
export function rateLimitSubject(principal: { kind: string; partnerGpid: string | null }, clientAddress: string): string {
  return principal.kind !== 'anonymous' && principal.partnerGpid ? partnerSubject(principal.partnerGpid) : `ip:${clientAddress}`;
}

/** The subject whose counters every credential of one partner spends. */
export function partnerSubject(partnerGpid: string): string {
  return `partner:${partnerGpid}`;
}

/**
 * The per-capability limits plus the overall and burst limits of each product, counted per subject
 * (the partner when authenticated, else the client address). Counters live in memory on the
 * embedded default and in Redis when configured, so every replica, and both the REST facade and the
 * gateway's /graphql, share them.
 */
export class RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(private readonly redis: Redis | undefined, private readonly prefix = 'svc') {}

  /** Spend every use at once; the decision reports the most restrictive state. */
  async consume(uses: readonly CapabilityUse[]): Promise<RateDecision | null> {
    const charges = new Map<string, { policy: LimitState['policy']; key: string; limit: RateLimit; subject: string; points: number }>();
    const charge = (policy: LimitState['policy'], key: string, limit: RateLimit, subject: string, points: number) => {
      const id = `${key}|${subject}`;
      const existing = charges.get(id);
      if (existing) existing.points += points;
      else charges.set(id, { policy, key, limit, subject, points });
    };
    for (const use of uses) {
      if (use.points <= 0) continue;
      const product = PRODUCT_LIMITS[use.capability.product];
      charge('burst', `burst:${use.capability.product}`, product.burst, use.subject, use.points);
      charge('partner', `overall:${use.capability.product}`, product.overall, use.subject, use.points);
      if (use.capability.limit) charge('route', `route:${use.capability.id}`, use.capability.limit, use.subject, use.points);
    }
    if (charges.size === 0) return null;

    const states = await Promise.all(
      [...charges.values()].map(async ({ policy, key, limit, subject, points }) => {
        let res: RateLimiterRes;
        let allowed = true;
        try {
          res = await this.store(() => this.limiter(key, limit).consume(subject, points));
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          res = rejection;
          allowed = false;
        }
        const state: LimitState = { policy, limit: limit.points, windowSeconds: windowSeconds(limit), remaining: Math.max(0, res.remainingPoints), resetMs: res.msBeforeNext };
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
   * Where a subject stands against every limit: each product's overall limit always, and the burst
   * and per-capability limits it has spent anything on in their current window.
   */
  async usage(subject: string): Promise<CounterUsage[]> {
    const counters: { policy: CounterUsage['policy']; key: string; name: string; product: Product; limit: RateLimit; always: boolean }[] = [];
    for (const [product, limits] of Object.entries(PRODUCT_LIMITS) as [Product, (typeof PRODUCT_LIMITS)[Product]][]) {
      counters.push({ policy: 'partner', key: `overall:${product}`, name: product, product, limit: limits.overall, always: true });
      counters.push({ policy: 'burst', key: `burst:${product}`, name: product, product, limit: limits.burst, always: false });
    }
    for (const c of Object.values(CAPABILITIES as Record<string, Capability>)) {
      if (c.limit) counters.push({ policy: 'route', key: `route:${c.id}`, name: c.id, product: c.product, limit: c.limit, always: false });
    }
    const read = await Promise.all(
      counters.map(async (c) => {
        const res = await this.store(() => this.limiter(c.key, c.limit).get(subject));
        const used = Math.min(c.limit.points, Math.max(0, res?.consumedPoints ?? 0));
        const usage: CounterUsage = {
          policy: c.policy,
          name: c.name,
          product: c.product,
          limit: c.limit.points,
          windowSeconds: windowSeconds(c.limit),
          used,
          remaining: c.limit.points - used,
          resetMs: used > 0 ? Math.max(0, res?.msBeforeNext ?? 0) : 0,
        };
        return c.always || used > 0 ? usage : null;
      }),
    );
    return read.filter((u): u is CounterUsage => u !== null);
  }

  /**
   * Whether an address has failed authentication too often lately. Checked before the credential
   * lookup, so a flood of made-up credentials costs one counter read each, not a database query.
   */
  async authFailuresExceeded(address: string): Promise<LimitState | null> {
    return this.exceeded('auth-failures', AUTH_FAILURES, address, 'auth_failures');
  }

  async recordAuthFailure(address: string): Promise<void> {
    await this.spend('auth-failures', AUTH_FAILURES, address);
  }

  /** Whether an OAuth client_id has failed client authentication too often lately. */
  async clientFailuresExceeded(clientId: string): Promise<LimitState | null> {
    return this.exceeded('client-auth-failures', CLIENT_AUTH_FAILURES, clientId, 'client_auth_failures');
  }

  async recordClientFailure(clientId: string): Promise<void> {
    await this.spend('client-auth-failures', CLIENT_AUTH_FAILURES, clientId);
  }

  /** Remember that `key` (a client id, or the hash of a client id and secret) authenticated successfully. */
  async markKnownValid(kind: 'client' | 'client-secret', key: string): Promise<void> {
    await this.spend(`known-${kind}`, KNOWN_VALID, key);
  }

  async isKnownValid(kind: 'client' | 'client-secret', key: string): Promise<boolean> {
    const res = await this.store(() => this.limiter(`known-${kind}`, KNOWN_VALID).get(key));
    return res !== null && res.consumedPoints > 0;
  }

  private async exceeded(name: string, limit: RateLimit, key: string, policy: LimitState['policy']): Promise<LimitState | null> {
    const res = await this.store(() => this.limiter(name, limit).get(key));
    if (!res || res.consumedPoints < limit.points) return null;
    return { policy, limit: limit.points, windowSeconds: windowSeconds(limit), remaining: 0, resetMs: res.msBeforeNext };
  }

  private async spend(name: string, limit: RateLimit, key: string): Promise<void> {
    await this.store(() => this.limiter(name, limit).consume(key)).catch((rejection: unknown) => {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
    });
  }

  /** A counter store (Redis) that cannot be reached is an outage (503 with Retry-After), never a 500; a spent limit stays a RateLimiterRes. */
  private async store<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof RateLimiterRes || err instanceof DomainError) throw err;
      throw new DependencyUnavailable('redis', err);
    }
  }

  private limiter(key: string, limit: RateLimit): RateLimiterAbstract {
    let limiter = this.limiters.get(key);
    if (!limiter) {
      const options = { keyPrefix: `${this.prefix}:rl:${key}`, points: limit.points, duration: windowSeconds(limit) };
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

/** Seconds to tell a refused caller in Retry-After (at least 1). */
export function retryAfterSeconds(state: LimitState): number {
  return Math.max(1, Math.ceil(state.resetMs / 1000));
}

/** The refusal for a spent limit: RATE_LIMITED naming the policy, its limit, window and Retry-After. */
export function rateLimitedError(state: LimitState): DomainError {
  const retryAfter = retryAfterSeconds(state);
  return new DomainError('RATE_LIMITED', `Rate limit exceeded (${state.limit} per ${state.windowSeconds}s, ${state.policy} policy); retry after ${retryAfter}s.`, {
    details: { policy: state.policy, limit: state.limit, window_seconds: state.windowSeconds, retry_after: retryAfter },
  });
}
