import type { EntityManager } from '@mikro-orm/core';
import { eventTypeMatches, newId, type EventEnvelope } from '@svc/platform';
import { webhookStore } from '../entities/webhook-store.js';
import { deliveryBody, TEST_PING } from './webhook-payload.js';

/**
 * The webhook dispatcher's event consumer: for each event, one delivery row per enabled endpoint
 * of the event's partner whose filter matches. Idempotent by (event id, endpoint): an event seen
 * again creates nothing new. Resolves only once the rows are committed, so a consumer that
 * acknowledges after it never loses a delivery.
 *
 * Tenancy: an endpoint receives only events whose `partner_gpid` is its own partner; events
 * without a partner (platform-wide ones) go to no webhook.
 */
export function webhookIntake(em: () => EntityManager, maxAttempts: number, onCreated: () => void): (event: EventEnvelope) => Promise<void> {
  return async (event) => {
    if (event.partner_gpid === null || event.type === TEST_PING) return;
    const fork = em();
    const endpoints = (await webhookStore.enabledFor(fork, event.partner_gpid)).filter((w) => w.eventTypes.some((filter) => eventTypeMatches(filter, event.type)));
    if (endpoints.length === 0) return;
    const payload = deliveryBody(event);
    await webhookStore.insertDeliveries(
      fork,
      endpoints.map((w) => ({ id: newId('dlv'), webhookId: w.id, partnerGpid: w.partnerGpid, eventId: event.id, eventType: event.type, payload, maxAttempts })),
      new Date(),
    );
    onCreated();
  };
}
