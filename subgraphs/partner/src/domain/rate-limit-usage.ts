import { partnerSubject, type CounterUsage, type RateLimitUsageReader } from '@svc/platform';

/** One counter of a partner, with the moment its window resets. */
export interface RateLimitCounter extends Omit<CounterUsage, 'resetMs'> {
  /** When the current window ends; null for a counter with nothing spent. */
  resetsAt: Date | null;
}

/** A partner's standing against the limits every one of its credentials spends. */
export interface RateLimitUsage {
  /** False when the operator runs without rate limits (SVC_RATE_LIMITS=off): nothing is counted. */
  enforced: boolean;
  counters: RateLimitCounter[];
}

const POLICY_ORDER: Record<CounterUsage['policy'], number> = { partner: 0, burst: 1, route: 2 };

/**
 * Read a partner's counters without spending: each product's overall limit, then the burst and
 * per-route limits it used in their current window, fullest first within each policy.
 */
export async function rateLimitUsageOf(reader: RateLimitUsageReader | undefined, partnerGpid: string, now: Date): Promise<RateLimitUsage> {
  if (!reader) return { enforced: false, counters: [] };
  const counters = (await reader.usage(partnerSubject(partnerGpid)))
    .map(({ resetMs, ...c }): RateLimitCounter => ({ ...c, resetsAt: c.used > 0 ? new Date(now.getTime() + resetMs) : null }))
    .sort((a, b) => POLICY_ORDER[a.policy] - POLICY_ORDER[b.policy] || b.used / b.limit - a.used / a.limit || a.name.localeCompare(b.name));
  return { enforced: true, counters };
}
