import type { EventEnvelope } from '@svc/platform';

/** The event type of the synthetic delivery `sendWebhookTestPing` queues. */
export const TEST_PING = 'test.ping';

/**
 * The JSON body of a delivery, in the Standard Webhooks shape (`type`, `timestamp`, `data`) plus the
 * event's id and partner (and `"sample": true` on a sample sent on request, which is no real event). It is rendered once, stored with the delivery and sent byte for byte on
 * every attempt, so a retried or redelivered body verifies and deduplicates like the first one.
 */
export function deliveryBody(event: EventEnvelope, sample = false): string {
  return JSON.stringify({ type: event.type, timestamp: event.occurred_at, event_id: event.id, partner_gpid: event.partner_gpid, ...(sample ? { sample: true } : {}), data: event.data });
}
