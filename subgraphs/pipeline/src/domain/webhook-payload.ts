import type { EventEnvelope } from '@svc/platform';

/** The event type of the synthetic delivery `sendWebhookTestPing` queues. */
export const TEST_PING = 'test.ping';

/**
 * The JSON body of a delivery, in the Standard Webhooks shape (`type`, `timestamp`, `data`) plus the
 * event's id and partner. It is rendered once, stored with the delivery and sent byte for byte on
 * every attempt, so a retried or redelivered body verifies and deduplicates like the first one.
 */
export function deliveryBody(event: EventEnvelope): string {
  return JSON.stringify({ type: event.type, timestamp: event.occurred_at, event_id: event.id, partner_gpid: event.partner_gpid, data: event.data });
}
