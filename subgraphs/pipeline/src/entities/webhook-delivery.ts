import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/**
 * pending → sending → succeeded | pending (retry scheduled) | failed (attempts exhausted);
 * cancelled when its endpoint is disabled or removed first. A manual redelivery puts a finished
 * delivery back to pending under the same id.
 */
export const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event (or test.ping) for one endpoint: dlv_…, the webhook-id header, stable across retries. */
export interface WebhookDelivery {
  id: string;
  webhookId: string;
  partnerGpid: string;
  eventId: string;
  eventType: string;
  /** The exact body sent on every attempt. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  /** Position in the retry schedule (a manual redelivery starts it again). */
  retryIndex: number;
  maxAttempts: number;
  nextAttemptAt: Date | null;
  /** Which worker holds the delivery while it is `sending`, until `leaseUntil`. */
  claim: string | null;
  leaseUntil: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  firstAttemptAt: Date | null;
  completedAt: Date | null;
  /** A sample of a catalog event type sent on request (one attempt), not an event that happened. */
  sample: boolean;
  /** The event's W3C traceparent (tracing on): each attempt's span joins the event's trace. */
  traceParent?: string | null;
}

export const WebhookDeliveryEntity = new EntitySchema<WebhookDelivery>({
  name: 'WebhookDelivery',
  tableName: 'pipeline_webhook_deliveries',
  properties: {
    id: { type: 'string', primary: true },
    webhookId: { type: 'string' },
    partnerGpid: { type: 'string' },
    eventId: { type: 'string' },
    eventType: { type: 'string' },
    payload: { type: 'text' },
    status: { type: 'string' },
    attempts: { type: 'integer' },
    retryIndex: { type: 'integer' },
    maxAttempts: { type: 'integer' },
    nextAttemptAt: { type: DateTimeType, nullable: true },
    claim: { type: 'string', nullable: true },
    leaseUntil: { type: DateTimeType, nullable: true },
    lastStatusCode: { type: 'integer', nullable: true },
    lastError: { type: 'string', nullable: true },
    createdAt: { type: DateTimeType },
    firstAttemptAt: { type: DateTimeType, nullable: true },
    completedAt: { type: DateTimeType, nullable: true },
    sample: { type: 'boolean', default: false },
    traceParent: { type: 'string', nullable: true },
  },
});

/** One HTTP attempt of a delivery, as the delivery log shows it. */
export interface WebhookAttempt {
  deliveryId: string;
  attempt: number;
  /** `schedule` (first try and retries), `manual` (a redelivery). */
  trigger: 'schedule' | 'manual';
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  /** The first 1024 characters of the receiver's answer. */
  responseExcerpt: string | null;
  error: string | null;
  nextRetryAt: Date | null;
  /** On a test.ping attempt answered 2xx: the status the receiver gave the same body signed with a wrong key (4xx means it verifies). */
  probeStatusCode: number | null;
}

export const WebhookAttemptEntity = new EntitySchema<WebhookAttempt>({
  name: 'WebhookAttempt',
  tableName: 'pipeline_webhook_attempts',
  properties: {
    deliveryId: { type: 'string', primary: true },
    attempt: { type: 'integer', primary: true },
    trigger: { type: 'string' },
    attemptedAt: { type: DateTimeType },
    statusCode: { type: 'integer', nullable: true },
    latencyMs: { type: 'integer' },
    responseExcerpt: { type: 'string', nullable: true },
    error: { type: 'string', nullable: true },
    nextRetryAt: { type: DateTimeType, nullable: true },
    probeStatusCode: { type: 'integer', nullable: true },
  },
});
