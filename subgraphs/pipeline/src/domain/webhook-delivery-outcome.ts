import type { WebhookSettings } from '@svc/platform';
import type { DeliveryStatus, WebhookDelivery } from '../entities/webhook-delivery.js';
import { retryDelayMs } from './webhook-retry-schedule.js';

/** What one HTTP attempt observed. */
export interface AttemptResult {
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  /** Transport failure (timeout, refused address, connection error), or a note on the answer. */
  error: string | null;
  retryAfterMs: number | null;
}

/** What the delivery becomes after an attempt. */
export interface Outcome {
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  /** Disable the endpoint: 410 Gone always, `persistent_failure` when the last attempt of a schedule fails and nothing succeeded on the endpoint since the schedule began. */
  disable: 'gone' | 'persistent_failure' | null;
}

export const isSuccess = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

/**
 * Decide the next state of a delivery from one attempt. 2xx succeeds; 410 Gone means the receiver
 * unsubscribed (the endpoint is disabled, nothing is retried); anything else (other statuses,
 * redirects, which are never followed, timeouts, refused addresses) is retried on the schedule
 * until `maxAttempts`.
 */
export function decideOutcome(
  delivery: Pick<WebhookDelivery, 'retryIndex' | 'maxAttempts' | 'firstAttemptAt'>,
  result: AttemptResult,
  endpoint: { lastSuccessAt: Date | null },
  settings: Pick<WebhookSettings, 'retryBaseMs' | 'backoffFactor' | 'retryMaxDelayMs' | 'maxAttempts'>,
  now: Date,
  random: () => number = Math.random,
): Outcome {
  if (isSuccess(result.statusCode)) return { status: 'succeeded', nextAttemptAt: null, disable: null };
  if (result.statusCode === 410) return { status: 'failed', nextAttemptAt: null, disable: 'gone' };
  const attemptsInSchedule = delivery.retryIndex + 1;
  if (attemptsInSchedule >= delivery.maxAttempts) {
    const since = delivery.firstAttemptAt ?? now;
    const succeededMeanwhile = endpoint.lastSuccessAt !== null && endpoint.lastSuccessAt >= since;
    // A one-attempt schedule (test.ping) says nothing about persistence.
    const persistent = delivery.maxAttempts > 1 && !succeededMeanwhile;
    return { status: 'failed', nextAttemptAt: null, disable: persistent ? 'persistent_failure' : null };
  }
  return { status: 'pending', nextAttemptAt: new Date(now.getTime() + retryDelayMs(settings, delivery.retryIndex, result.retryAfterMs, random)), disable: null };
}
