import type { EntityManager } from '@mikro-orm/core';
import { canonicalEventFilter, DomainError, eventFilterProblem, makeEvent, newId, recordEvent, validationError, type EventEnvelope, type FieldError, type WebhookSettings } from '@svc/platform';
import { WebhookEntity, type Webhook, type WebhookDisabledReason } from '../entities/webhook.js';
import { WebhookDeliveryEntity, type WebhookDelivery } from '../entities/webhook-delivery.js';
import { webhookStore } from '../entities/webhook-store.js';
import { checkWebhookUrl, type AddressPolicy, type Resolver } from './webhook-address-policy.js';
import { newWebhookSecret } from './webhook-signing.js';
import { deliveryBody, TEST_PING } from './webhook-payload.js';
import { sampleEventData } from './webhook-samples.js';

/** Live endpoints one partner may have. */
export const MAX_WEBHOOKS_PER_PARTNER = 20;
/** Entries of one endpoint's event filter. */
export const MAX_EVENT_FILTERS = 50;

export interface WebhookInput {
  url: string;
  eventTypes: readonly string[];
  description: string | null;
}

/** Shape rules of an endpoint's input (the URL's address check is `checkWebhookUrl`). Field names are the REST ones. */
function checkInput(input: WebhookInput): void {
  const errors: FieldError[] = [];
  if (input.eventTypes.length === 0) errors.push({ field: 'event_types', message: 'must name at least one event type (or a wildcard such as tefca.*)' });
  if (input.eventTypes.length > MAX_EVENT_FILTERS) errors.push({ field: 'event_types', message: `must have at most ${MAX_EVENT_FILTERS} entries` });
  input.eventTypes.forEach((filter, i) => {
    const problem = eventFilterProblem(filter);
    if (problem) errors.push({ field: `event_types.${i}`, message: problem });
  });
  if (input.description !== null && input.description.length > 200) errors.push({ field: 'description', message: 'must be at most 200 characters' });
  if (errors.length > 0) throw validationError(errors);
}

/**
 * Register an endpoint for a partner. Answers the endpoint and its `whsec_` secret, which is shown
 * in this answer only (and after a rotation).
 */
export async function createWebhook(em: EntityManager, partnerGpid: string, input: WebhookInput, policy: AddressPolicy, now: Date, resolve?: Resolver): Promise<{ webhook: Webhook; secret: string }> {
  checkInput(input);
  const url = await checkWebhookUrl(input.url, policy, resolve);
  if ((await webhookStore.countLive(em, partnerGpid)) >= MAX_WEBHOOKS_PER_PARTNER) {
    throw new DomainError('CONFLICT', `A partner may have at most ${MAX_WEBHOOKS_PER_PARTNER} webhooks; remove one first.`, { details: { limit: MAX_WEBHOOKS_PER_PARTNER } });
  }
  const secret = newWebhookSecret();
  const webhook = em.create(WebhookEntity, {
    id: newId('whk'),
    partnerGpid,
    url: url.toString(),
    description: input.description,
    eventTypes: [...new Set(input.eventTypes.map(canonicalEventFilter))],
    secret,
    previousSecret: null,
    previousSecretExpiresAt: null,
    enabled: true,
    disabledReason: null,
    disabledAt: null,
    lastSuccessAt: null,
    signatureVerifiedAt: null,
    createdAt: now,
    removedAt: null,
  });
  return { webhook, secret };
}

/** What an edit changes; a field left out keeps its value. */
export interface WebhookUpdate {
  url?: string | undefined;
  eventTypes?: readonly string[] | undefined;
  description?: string | null | undefined;
}

/**
 * Edit an endpoint's URL, event filter or description, with the same rules as at creation (the
 * address check included). A new URL is a new receiver: its signature verification is unknown
 * again until a test.ping shows it. Deliveries already queued keep their body and go to the new URL.
 */
export async function updateWebhook(webhook: Webhook, update: WebhookUpdate, policy: AddressPolicy, resolve?: Resolver): Promise<void> {
  if (update.url === undefined && update.eventTypes === undefined && update.description === undefined) {
    throw validationError([{ field: 'url', message: 'nothing to change: give url, event_types or description' }]);
  }
  const next: WebhookInput = {
    url: update.url ?? webhook.url,
    eventTypes: update.eventTypes ?? webhook.eventTypes,
    description: update.description === undefined ? webhook.description : update.description,
  };
  checkInput(next);
  if (update.url !== undefined) {
    const url = (await checkWebhookUrl(update.url, policy, resolve)).toString();
    if (url !== webhook.url) {
      webhook.url = url;
      webhook.signatureVerifiedAt = null;
    }
  }
  if (update.eventTypes !== undefined) webhook.eventTypes = [...new Set(update.eventTypes.map(canonicalEventFilter))];
  if (update.description !== undefined) webhook.description = update.description;
}

/** Cancel what an endpoint still had waiting. */
async function cancelPending(em: EntityManager, webhookId: string, reason: string, now: Date): Promise<void> {
  await em.nativeUpdate(WebhookDeliveryEntity, { webhookId, status: 'pending' }, { status: 'cancelled', lastError: reason, nextAttemptAt: null, completedAt: now });
}

/** Remove an endpoint (soft: its rows stay for the record); it is no longer listed and receives nothing more. */
export async function removeWebhook(em: EntityManager, webhook: Webhook, now: Date): Promise<void> {
  webhook.removedAt = now;
  webhook.enabled = false;
  await cancelPending(em, webhook.id, 'endpoint removed', now);
}

/**
 * Replace the secret. During `overlapMs` every delivery carries two signatures (new, then old), so
 * a receiver can switch keys whenever it likes within the window.
 */
export function rotateWebhookSecret(webhook: Webhook, overlapMs: number, now: Date): string {
  const secret = newWebhookSecret();
  webhook.previousSecret = overlapMs > 0 ? webhook.secret : null;
  webhook.previousSecretExpiresAt = overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null;
  webhook.secret = secret;
  return secret;
}

/** The secrets that sign a delivery at `now`: the current one, and the previous one during its overlap. */
export function signingSecrets(webhook: Webhook, now: Date): string[] {
  const previous = webhook.previousSecret && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > now ? [webhook.previousSecret] : [];
  return [webhook.secret, ...previous];
}

/** Re-enable an endpoint that was disabled (by a 410, persistent failure, or its partner). */
export function enableWebhook(webhook: Webhook): void {
  webhook.enabled = true;
  webhook.disabledReason = null;
  webhook.disabledAt = null;
}

/**
 * Disable an endpoint and say so with `webhook.endpoint.disabled` (staged in the same unit of work):
 * its waiting deliveries are cancelled, and nothing is sent to it until it is enabled again.
 * `deliveryId` names the delivery that made the platform disable it (null when its partner did).
 */
export async function disableWebhook(em: EntityManager, webhook: Webhook, reason: WebhookDisabledReason, deliveryId: string | null, now: Date): Promise<void> {
  if (!webhook.enabled) return;
  webhook.enabled = false;
  webhook.disabledReason = reason;
  webhook.disabledAt = now;
  await cancelPending(em, webhook.id, `endpoint disabled (${reason})`, now);
  recordEvent(
    em,
    makeEvent('webhook.endpoint.disabled', webhook.partnerGpid, {
      event: 'webhook.endpoint.disabled',
      webhook_id: webhook.id,
      partner_gpid: webhook.partnerGpid,
      url: webhook.url,
      reason,
      delivery_id: deliveryId,
      disabled_at: now.toISOString(),
    }, now),
  );
}

/** A delivery of one attempt (no retries; redeliver it to try again): a test.ping or a sample. */
function queueOneShot(em: EntityManager, webhook: Webhook, event: EventEnvelope, sample: boolean, now: Date): WebhookDelivery {
  return em.create(WebhookDeliveryEntity, {
    id: newId('dlv'),
    webhookId: webhook.id,
    partnerGpid: webhook.partnerGpid,
    eventId: event.id,
    eventType: event.type,
    payload: deliveryBody(event, sample),
    status: 'pending',
    attempts: 0,
    retryIndex: 0,
    maxAttempts: 1,
    nextAttemptAt: now,
    claim: null,
    leaseUntil: null,
    lastStatusCode: null,
    lastError: null,
    createdAt: now,
    firstAttemptAt: null,
    completedAt: null,
    sample,
  });
}

/**
 * Queue a signed `test.ping` for an endpoint: one attempt, no retries (redeliver it to try again).
 * It works on a disabled endpoint too, so a partner can check a receiver before enabling it again.
 */
export function queueTestPing(em: EntityManager, webhook: Webhook, now: Date): WebhookDelivery {
  return queueOneShot(em, webhook, makeEvent(TEST_PING, webhook.partnerGpid, { event: TEST_PING, webhook_id: webhook.id }, now), false, now);
}

/**
 * Queue a sample of a catalog event type for an endpoint, whatever its filter: the type's payload
 * shape with made-up ids, `"sample": true` in the body, signed like any delivery, one attempt. It is
 * not an event: nothing else (event log, subscriptions, other endpoints) sees it. Refused for a
 * disabled endpoint (enable it first, or use test.ping).
 */
export function queueSample(em: EntityManager, webhook: Webhook, eventType: string, now: Date): WebhookDelivery {
  const type = canonicalEventFilter(eventType);
  const data = sampleEventData(type, webhook.partnerGpid, now);
  if (!data) throw validationError([{ field: 'event_type', message: 'must be an event type of the catalog (webhookEventTypes)' }]);
  if (!webhook.enabled) throw new DomainError('CONFLICT', `Webhook ${webhook.id} is disabled (${webhook.disabledReason ?? 'disabled'}); enable it first.`);
  return queueOneShot(em, webhook, makeEvent(type, webhook.partnerGpid, data, now), true, now);
}

/**
 * Send a delivery again under the same id (the receiver deduplicates by webhook-id): a fresh retry
 * schedule starts now. Refused while it is still waiting or in flight, and for a disabled endpoint
 * (except a test.ping).
 */
export function redeliver(delivery: WebhookDelivery, webhook: Webhook, settings: Pick<WebhookSettings, 'maxAttempts'>, now: Date): void {
  if (delivery.status === 'pending' || delivery.status === 'sending') {
    throw new DomainError('CONFLICT', `Delivery ${delivery.id} is still ${delivery.status}; it will be attempted on its schedule.`);
  }
  const oneShot = delivery.eventType === TEST_PING || delivery.sample;
  if (!webhook.enabled && delivery.eventType !== TEST_PING) {
    throw new DomainError('CONFLICT', `Webhook ${webhook.id} is disabled (${webhook.disabledReason ?? 'disabled'}); enable it first.`);
  }
  delivery.status = 'pending';
  delivery.retryIndex = 0;
  delivery.maxAttempts = oneShot ? 1 : settings.maxAttempts;
  delivery.nextAttemptAt = now;
  delivery.firstAttemptAt = null;
  delivery.completedAt = null;
  delivery.lastError = null;
}
