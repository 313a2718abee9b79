import type { WebhookSettings } from '@svc/platform';

type Schedule = Pick<WebhookSettings, 'retryBaseMs' | 'backoffFactor' | 'retryMaxDelayMs' | 'maxAttempts'>;

/**
 * The wait before retry number `retryIndex + 1` (0 = the first retry): exponential backoff
 * (`base × factor^retryIndex`, capped at `retryMaxDelayMs`) with ±25 % jitter, so that receivers
 * recovering from an outage are not hit by every delivery at the same instant. A receiver's
 * `Retry-After` is honoured as a lower bound (capped at the same maximum).
 */
export function retryDelayMs(schedule: Schedule, retryIndex: number, retryAfterMs: number | null, random: () => number = Math.random): number {
  const backoff = Math.min(schedule.retryBaseMs * schedule.backoffFactor ** retryIndex, schedule.retryMaxDelayMs);
  const jittered = Math.round(backoff * (0.75 + random() * 0.5));
  const floor = retryAfterMs === null ? 0 : Math.min(retryAfterMs, schedule.retryMaxDelayMs);
  return Math.max(1, jittered, floor);
}

/** The nominal time from the first attempt to the last one (no jitter, no Retry-After). */
export function scheduleSpanMs(schedule: Schedule): number {
  let total = 0;
  for (let i = 0; i < schedule.maxAttempts - 1; i++) total += Math.min(schedule.retryBaseMs * schedule.backoffFactor ** i, schedule.retryMaxDelayMs);
  return total;
}

/**
 * Milliseconds a `Retry-After` header asks for (delta-seconds or an HTTP-date), or null when absent
 * or malformed.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
