import type { EntityManager } from '@mikro-orm/core';
import { chunks, eventTypeMatches, newId, type EventEnvelope } from '@svc/platform';
import type { Webhook } from '../entities/webhook.js';
import { webhookStore, type NewDelivery } from '../entities/webhook-store.js';
import { deliveryBody, TEST_PING } from './webhook-payload.js';

/** Deliveries per INSERT (12 bound values each). */
const INSERT_CHUNK = 500;

/**
 * The webhook dispatcher's event consumer, for consecutive events at once: one delivery row per
 * event and enabled endpoint of the event's partner whose filter matches, with one endpoint lookup
 * per partner and multi-row inserts per batch. Idempotent by (event id, endpoint): an event seen
 * again creates nothing new. Resolves only once the rows are committed, so a consumer that
 * acknowledges after it never loses a delivery.
 *
 * Tenancy: an endpoint receives only events whose `partner_gpid` is its own partner; events
 * without a partner (platform-wide ones) go to no webhook.
 */
export function webhookIntake(em: () => EntityManager, maxAttempts: number, onCreated: () => void): (events: readonly EventEnvelope[]) => Promise<void> {
  return async (events) => {
    const deliverable = events.filter((e): e is EventEnvelope & { partner_gpid: string } => e.partner_gpid !== null && e.type !== TEST_PING);
    if (deliverable.length === 0) return;
    const fork = em();
    const endpointsOf = new Map<string, Webhook[]>();
    for (const partner of new Set(deliverable.map((e) => e.partner_gpid))) endpointsOf.set(partner, await webhookStore.enabledFor(fork, partner));
    const rows: NewDelivery[] = [];
    for (const event of deliverable) {
      const endpoints = endpointsOf.get(event.partner_gpid)!.filter((w) => w.eventTypes.some((filter) => eventTypeMatches(filter, event.type)));
      if (endpoints.length === 0) continue;
      const payload = deliveryBody(event);
      for (const w of endpoints) rows.push({ id: newId('dlv'), webhookId: w.id, partnerGpid: w.partnerGpid, eventId: event.id, eventType: event.type, payload, maxAttempts, traceParent: event.traceparent ?? null });
    }
    if (rows.length === 0) return;
    const now = new Date();
    for (const chunk of chunks(rows, INSERT_CHUNK)) await webhookStore.insertDeliveries(fork, chunk, now);
    onCreated();
  };
}
