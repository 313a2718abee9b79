import type { ConsumerLag } from '@svc/platform';

/** The pipeline's durable consumers (their names are their positions' identity: keep them stable). */
export const PIPELINE_CONSUMERS = ['event-log', 'sync-jobs', 'webhooks', 'tefca-exchanges'] as const;

/**
 * When pipeline health turns `degraded` (see the subgraph README). Constants rather than settings:
 * they describe what "behind" means for this platform, not a deployment's taste.
 */
export const HEALTH_THRESHOLDS = {
  /** Queued or running sync job unchanged for this long: no worker is moving it. */
  jobStuckMs: 15 * 60_000,
  /** Finished sync jobs in the window that must have succeeded. */
  minJobSuccessRate: 0.95,
  /** A consumer with more unacknowledged events than this is behind. */
  consumerMaxUnacknowledged: 1_000,
  /** A consumer whose oldest unacknowledged event is older than this is stopped or stuck. */
  consumerMaxAgeMs: 60_000,
  /** Webhook deliveries waiting or in flight. */
  webhookMaxPending: 1_000,
  /** The oldest waiting delivery: a receiver failing for this long. */
  webhookMaxPendingAgeMs: 3600_000,
  /** Share of webhook attempts in the webhook window without a 2xx answer. */
  webhookMaxFailureRate: 0.25,
  /** The window of the webhook failure rate. */
  webhookWindowMs: 3600_000,
} as const;

export interface ConsumerHealth {
  name: string;
  status: 'healthy' | 'degraded' | 'unknown';
  unacknowledged: number | null;
  oldestAgeSeconds: number | null;
}

export interface WebhookDeliveryHealth {
  status: 'healthy' | 'degraded';
  pending: number;
  due: number;
  oldestPendingAgeSeconds: number | null;
  windowMinutes: number;
  attempts: number;
  failedAttempts: number;
  failureRate: number | null;
}

const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 100) / 10);

/** A consumer's health from its lag; `null` lag means the stream could not be read. */
export function assessConsumer(name: string, lag: ConsumerLag | null): ConsumerHealth {
  if (!lag) return { name, status: 'unknown', unacknowledged: null, oldestAgeSeconds: null };
  const behind = (lag.unacknowledged ?? 0) > HEALTH_THRESHOLDS.consumerMaxUnacknowledged || (lag.oldestAgeMs ?? 0) > HEALTH_THRESHOLDS.consumerMaxAgeMs;
  return { name, status: behind ? 'degraded' : 'healthy', unacknowledged: lag.unacknowledged, oldestAgeSeconds: seconds(lag.oldestAgeMs) };
}

/** Webhook delivery health from the backlog and the attempts of the webhook window. */
export function assessWebhooks(
  d: { pending: number; due: number; oldestPendingAt: Date | null; attempts: number; failedAttempts: number },
  now: Date,
): WebhookDeliveryHealth {
  const oldestAgeMs = d.oldestPendingAt ? Math.max(0, now.getTime() - d.oldestPendingAt.getTime()) : null;
  const failureRate = d.attempts === 0 ? null : d.failedAttempts / d.attempts;
  const t = HEALTH_THRESHOLDS;
  const degraded = d.pending > t.webhookMaxPending || (oldestAgeMs ?? 0) > t.webhookMaxPendingAgeMs || (failureRate ?? 0) > t.webhookMaxFailureRate;
  return {
    status: degraded ? 'degraded' : 'healthy',
    pending: d.pending,
    due: d.due,
    oldestPendingAgeSeconds: seconds(oldestAgeMs),
    windowMinutes: t.webhookWindowMs / 60_000,
    attempts: d.attempts,
    failedAttempts: d.failedAttempts,
    failureRate,
  };
}

/**
 * The overall status: `degraded` when the event stream is down, a consumer is behind, webhook
 * delivery is degraded, a job is stuck or too many jobs failed; otherwise `idle` when no job
 * finished in the window, else `healthy`. `reasons` says which.
 */
export function overallStatus(parts: {
  streamUp: boolean;
  consumers: ConsumerHealth[];
  webhooks: WebhookDeliveryHealth;
  jobsStuck: number;
  successRate: number | null;
}): { status: 'healthy' | 'degraded' | 'idle'; reasons: string[] } {
  const reasons: string[] = [];
  if (!parts.streamUp) reasons.push('event stream unreachable');
  for (const c of parts.consumers) if (c.status === 'degraded') reasons.push(`consumer ${c.name} behind`);
  if (parts.webhooks.status === 'degraded') reasons.push('webhook delivery degraded');
  if (parts.jobsStuck > 0) reasons.push('sync jobs stuck');
  if (parts.successRate !== null && parts.successRate < HEALTH_THRESHOLDS.minJobSuccessRate) reasons.push('sync job failure rate');
  const status = reasons.length > 0 ? 'degraded' : parts.successRate === null ? 'idle' : 'healthy';
  return { status, reasons };
}
