import { describe, expect, it } from 'vitest';
import { loadConfig } from '@svc/platform';
import { parseRetryAfter, retryDelayMs, scheduleSpanMs } from './webhook-retry-schedule.js';
import { decideOutcome } from './webhook-delivery-outcome.js';

const defaults = loadConfig({ SVC_DATA_DIR: '/tmp/unused' }).webhooks;
const DAY = 24 * 3600_000;

describe('webhook retry schedule', () => {
  it('spans more than a day by default, growing exponentially to its cap', () => {
    expect(scheduleSpanMs(defaults)).toBeGreaterThan(DAY);
    const nominal = (i: number) => retryDelayMs(defaults, i, null, () => 0.5);
    expect(nominal(0)).toBe(defaults.retryBaseMs);
    expect(nominal(1)).toBe(defaults.retryBaseMs * defaults.backoffFactor);
    expect(nominal(20)).toBe(defaults.retryMaxDelayMs);
  });

  it('jitters within ±25 % and honours Retry-After as a lower bound, capped', () => {
    expect(retryDelayMs(defaults, 0, null, () => 0)).toBe(defaults.retryBaseMs * 0.75);
    expect(retryDelayMs(defaults, 0, null, () => 1)).toBe(defaults.retryBaseMs * 1.25);
    expect(retryDelayMs(defaults, 0, 120_000, () => 0.5)).toBe(120_000);
    expect(retryDelayMs(defaults, 0, 10 * DAY, () => 0.5)).toBe(defaults.retryMaxDelayMs);
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
  });

  it('decides: 2xx succeeds, 410 disables, the last failure of a schedule disables unless something succeeded meanwhile', () => {
    const now = new Date();
    const started = new Date(now.getTime() - 1000);
    const result = (statusCode: number | null) => ({ statusCode, latencyMs: 5, responseExcerpt: null, error: null, retryAfterMs: null });
    const delivery = { retryIndex: 0, maxAttempts: 3, firstAttemptAt: started };
    expect(decideOutcome(delivery, result(204), { lastSuccessAt: null }, defaults, now).status).toBe('succeeded');
    expect(decideOutcome(delivery, result(410), { lastSuccessAt: null }, defaults, now)).toMatchObject({ status: 'failed', disable: 'gone' });
    expect(decideOutcome(delivery, result(500), { lastSuccessAt: null }, defaults, now)).toMatchObject({ status: 'pending', disable: null });
    const last = { ...delivery, retryIndex: 2 };
    expect(decideOutcome(last, result(null), { lastSuccessAt: null }, defaults, now)).toMatchObject({ status: 'failed', disable: 'persistent_failure' });
    expect(decideOutcome(last, result(500), { lastSuccessAt: now }, defaults, now)).toMatchObject({ status: 'failed', disable: null });
    expect(decideOutcome({ retryIndex: 0, maxAttempts: 1, firstAttemptAt: null }, result(500), { lastSuccessAt: null }, defaults, now)).toMatchObject({ status: 'failed', disable: null });
  });
});
