import {
  actsFor,
  connectionType,
  decodeOptionalCursor,
  DomainError,
  isId,
  isOperator,
  loaderFor,
  pageSize,
  toPage,
  validationError,
  WEBHOOK_EVENT_TYPES,
  type EventTypeInfo,
  type SubgraphBuilder,
  type SubgraphContext,
  type SubgraphServices,
} from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import type { Webhook } from '../entities/webhook.js';
import { DELIVERY_STATUSES, type WebhookAttempt, type WebhookDelivery } from '../entities/webhook-delivery.js';
import { webhookStore } from '../entities/webhook-store.js';
import { createWebhook, disableWebhook, enableWebhook, MAX_EVENT_FILTERS, MAX_WEBHOOKS_PER_PARTNER, queueSample, queueTestPing, redeliver, removeWebhook, rotateWebhookSecret, updateWebhook } from '../domain/webhook-endpoints.js';
import { signatureRefused } from '../webhooks/delivery-worker.js';
import { scheduleSpanMs } from '../domain/webhook-retry-schedule.js';

/** Lets a mutation wake the delivery worker of this process, when it runs one (else its next poll finds the row). */
export interface WebhookWakeup {
  wake(): void;
}

const SCOPES = { anyScope: ['cms.webhooks.manage', 'cms.admin'] };
const MAX_OVERLAP_SECONDS = 30 * 24 * 3600;

/** Webhook endpoints, deliveries and their log, for /api/partner/webhooks and the portal's /webhooks page. */
export function defineWebhooks(builder: SubgraphBuilder, services: SubgraphServices, wakeup: WebhookWakeup) {
  const settings = services.runtime.config.webhooks;
  const policy = { allowPrivateAddresses: settings.allowPrivateAddresses, requireHttps: services.runtime.config.environment === 'production' };

  const EventTypeRef = builder.objectRef<EventTypeInfo>('WebhookEventType').implement({
    description: 'An event type a webhook can subscribe to.',
    fields: (t) => ({
      type: t.exposeString('type', { description: 'e.g. pipeline.sync.completed, tefca.xcpd.query.completed.' }),
      category: t.exposeString('category'),
      description: t.exposeString('description'),
      status: t.exposeString('status', { description: 'emitted, or planned (named ahead of its producer, so partners can subscribe before it emits).' }),
    }),
  });

  const SignatureCheckRef = builder.enumType('WebhookSignatureCheck', {
    description: "What a test.ping showed of the receiver's signature verification. A 2xx proves the endpoint is reachable, not that it verifies.",
    values: { VERIFIED: { value: 'VERIFIED' }, NOT_VERIFIED: { value: 'NOT_VERIFIED' }, NOT_CHECKED: { value: 'NOT_CHECKED' } } as const,
  });

  const StatsRef = builder.objectRef<{ attempts: number; succeeded: number }>('WebhookDeliveryStats').implement({
    description: "An endpoint's delivery attempts over the last 24 hours.",
    fields: (t) => ({
      attempts: t.exposeInt('attempts'),
      succeeded: t.exposeInt('succeeded', { description: 'Attempts answered 2xx.' }),
      failed: t.int({ resolve: (s) => s.attempts - s.succeeded, description: 'Attempts with another answer or none.' }),
      successRate: t.float({ nullable: true, resolve: (s) => (s.attempts === 0 ? null : s.succeeded / s.attempts), description: 'succeeded / attempts, from 0 to 1; null without attempts.' }),
    }),
  });

  const AttemptRef = builder.objectRef<WebhookAttempt>('WebhookDeliveryAttempt').implement({
    description: 'One HTTP attempt of a delivery.',
    fields: (t) => ({
      attempt: t.exposeInt('attempt', { description: '1 for the first attempt; numbering goes on across redeliveries.' }),
      trigger: t.exposeString('trigger', { description: 'schedule (first try and retries) or manual (a redelivery).' }),
      attemptedAt: t.expose('attemptedAt', { type: 'DateTime' }),
      statusCode: t.exposeInt('statusCode', { nullable: true, description: "The receiver's HTTP status; null when no answer came." }),
      latencyMs: t.exposeInt('latencyMs'),
      responseExcerpt: t.exposeString('responseExcerpt', { nullable: true, description: "The first 1024 characters of the receiver's answer." }),
      error: t.exposeString('error', { nullable: true, description: 'Why the attempt failed without an answer (timeout, refused address…), or a note (redirect not followed, test.ping not verified).' }),
      nextRetryAt: t.expose('nextRetryAt', { type: 'DateTime', nullable: true, description: 'When the next attempt of the schedule is due; null when none follows.' }),
      probeStatusCode: t.exposeInt('probeStatusCode', {
        nullable: true,
        description: 'test.ping only, when it was answered 2xx: the status the receiver gave the same body signed with a wrong key (0: no answer). A 4xx means it verifies signatures.',
      }),
      signatureCheck: t.field({
        type: SignatureCheckRef,
        description: 'VERIFIED: the receiver accepted the signed test.ping and refused the mis-signed probe with 4xx; NOT_VERIFIED: it accepted (or did not refuse) the probe too; NOT_CHECKED: no probe was sent (not a test.ping, or the ping itself was not answered 2xx).',
        resolve: (a) => (a.probeStatusCode === null ? 'NOT_CHECKED' : signatureRefused(a.probeStatusCode) ? 'VERIFIED' : 'NOT_VERIFIED'),
      }),
    }),
  });

  const StatusRef = builder.enumType('WebhookDeliveryStatus', {
    description: 'pending → sending → succeeded | pending (retry) | failed; cancelled when the endpoint was disabled or removed first.',
    values: Object.fromEntries(DELIVERY_STATUSES.map((s) => [s.toUpperCase(), { value: s }])) as Record<string, { value: (typeof DELIVERY_STATUSES)[number] }>,
  });

  const DeliveryRef = builder.objectRef<WebhookDelivery>('WebhookDelivery').implement({
    description: 'One event (or test.ping) for one endpoint. deliveryId is the webhook-id header, the same on every attempt and redelivery.',
    fields: (t) => ({
      deliveryId: t.exposeID('id', { description: 'dlv_…' }),
      webhookId: t.exposeID('webhookId'),
      eventId: t.exposeID('eventId'),
      eventType: t.exposeString('eventType'),
      status: t.field({ type: StatusRef, resolve: (d) => d.status }),
      attempts: t.exposeInt('attempts'),
      nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
      lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true }),
      lastError: t.exposeString('lastError', { nullable: true }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
      body: t.exposeString('payload', { description: 'The exact JSON body sent and signed on every attempt (ids, codes, counts and times; never health data).' }),
      sample: t.exposeBoolean('sample', { description: 'A sample of its event type sent on request (sendWebhookSample), not an event that happened.' }),
      log: t.field({
        type: [AttemptRef],
        description: 'Every attempt, oldest first.',
        resolve: (d, _args, ctx) =>
          loaderFor<string, WebhookAttempt[]>(ctx, 'webhookAttempts', async (ids) => {
            const rows = await webhookStore.attempts(ctx.em, ids);
            return ids.map((id) => rows.filter((r) => r.deliveryId === id));
          }).load(d.id),
      }),
    }),
  });
  const DeliveryConnection = connectionType(builder, 'WebhookDelivery', DeliveryRef);

  const WebhookRef = builder.objectRef<Webhook>('Webhook').implement({
    description: 'A partner webhook endpoint (Standard Webhooks signing). Its secret is shown only at creation and rotation.',
    fields: (t) => ({
      webhookId: t.exposeID('id', { description: 'whk_…' }),
      partnerGpid: t.exposeID('partnerGpid'),
      url: t.exposeString('url'),
      description: t.exposeString('description', { nullable: true }),
      eventTypes: t.exposeStringList('eventTypes', { description: 'Exact event types, prefix wildcards (tefca.*) or *.' }),
      enabled: t.exposeBoolean('enabled'),
      disabledReason: t.exposeString('disabledReason', { nullable: true, description: 'gone (the receiver answered 410), persistent_failure, or partner (disabled by its partner).' }),
      disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true }),
      lastSuccessAt: t.expose('lastSuccessAt', { type: 'DateTime', nullable: true }),
      previousSecretExpiresAt: t.field({
        type: 'DateTime',
        nullable: true,
        description: 'Until then, deliveries carry a second signature with the secret replaced by the last rotation.',
        resolve: (w) => (w.previousSecretExpiresAt && w.previousSecretExpiresAt > new Date() ? w.previousSecretExpiresAt : null),
      }),
      signatureVerifiedAt: t.expose('signatureVerifiedAt', {
        type: 'DateTime',
        nullable: true,
        description: 'When the latest test.ping showed that the receiver verifies signatures (it accepted the signed ping and refused the same body under a wrong key with 4xx). Null until then, after a ping that was not refused, and after the URL changes.',
      }),
      recentDeliveryStats: t.field({
        type: StatsRef,
        description: 'Delivery attempts of the last 24 hours and their success rate.',
        resolve: (w, _args, ctx) =>
          loaderFor<string, { attempts: number; succeeded: number }>(ctx, 'webhookStats24h', async (ids) => {
            const stats = await webhookStore.attemptStats(ctx.em, ids, new Date(Date.now() - 24 * 3600_000));
            return ids.map((id) => stats.get(id) ?? { attempts: 0, succeeded: 0 });
          }).load(w.id),
      }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      deliveries: t.field({
        type: DeliveryConnection,
        description: 'The delivery log, newest first.',
        args: { first: t.arg.int(), after: t.arg.string(), status: t.arg({ type: StatusRef }) },
        resolve: async (w, args, ctx) => {
          const size = pageSize(args.first);
          const rows = await webhookStore.deliveriesPage(ctx.em, w.id, size, decodeOptionalCursor(args.after, { isKey: (k) => isId('dlv', k) }), args.status ?? null);
          return toPage(rows, size, (d) => d.id);
        },
      }),
    }),
  });

  const SecretRef = builder.objectRef<{ webhook: Webhook; secret: string }>('WebhookSecret').implement({
    description: 'An endpoint with its signing secret, shown here once.',
    fields: (t) => ({
      webhook: t.field({ type: WebhookRef, resolve: (c) => c.webhook }),
      secret: t.exposeString('secret', { description: 'whsec_<base64 key>: verify webhook-signature with any Standard Webhooks library.' }),
    }),
  });

  const CreateInput = builder.inputType('CreateWebhookInput', {
    fields: (t) => ({
      partnerGpid: t.id({ description: "Operators only: the partner the endpoint belongs to (default: the caller's)." }),
      url: t.string({ required: true, description: 'https URL of the receiver (http outside production); private, loopback and link-local addresses are refused.' }),
      eventTypes: t.stringList({ required: true, description: `1 to ${MAX_EVENT_FILTERS} event types, prefix wildcards (tefca.*) or *. See webhookEventTypes.` }),
      description: t.string(),
    }),
  });

  const UpdateInput = builder.inputType('UpdateWebhookInput', {
    description: 'What to change; a field left out keeps its value. The rules are those of createWebhook.',
    fields: (t) => ({
      url: t.string({ description: 'A new receiver URL (same address rules as at creation); its signature verification is unknown again until a test.ping.' }),
      eventTypes: t.stringList({ description: `1 to ${MAX_EVENT_FILTERS} event types, prefix wildcards (tefca.*) or *.` }),
      description: t.string({ description: 'A new description; an empty string clears it.' }),
    }),
  });

  /** The caller's endpoint; another partner's answers NOT_FOUND exactly like a missing one. */
  const loadWebhook = async (ctx: SubgraphContext, id: string, em: EntityManager = ctx.em): Promise<Webhook> => {
    const webhook = isId('whk', id) ? await webhookStore.byId(em, id) : null;
    if (!webhook || !actsFor(ctx.principal, webhook.partnerGpid)) throw new DomainError('NOT_FOUND', `Webhook ${id} does not exist.`);
    return webhook;
  };
  const loadDelivery = async (ctx: SubgraphContext, id: string, em: EntityManager = ctx.em): Promise<{ delivery: WebhookDelivery; webhook: Webhook }> => {
    const delivery = isId('dlv', id) ? await webhookStore.delivery(em, id) : null;
    const webhook = delivery ? await webhookStore.byId(em, delivery.webhookId) : null;
    if (!delivery || !webhook || !actsFor(ctx.principal, delivery.partnerGpid)) throw new DomainError('NOT_FOUND', `Delivery ${id} does not exist.`);
    return { delivery, webhook };
  };

  builder.queryFields((t) => ({
    webhookEventTypes: t.field({
      type: [EventTypeRef],
      description: 'Every event type a webhook can subscribe to, TEFCA exchange events included.',
      authScopes: { authenticated: true },
      resolve: () => [...WEBHOOK_EVENT_TYPES],
    }),
    webhooks: t.field({
      type: [WebhookRef],
      description: `Your partner's webhooks, oldest first (at most ${MAX_WEBHOOKS_PER_PARTNER}). Operators: every partner's, or the named partner's.`,
      args: { partnerGpid: t.arg.id() },
      authScopes: SCOPES,
      resolve: (_root, args, ctx) => {
        const named = args.partnerGpid ? String(args.partnerGpid) : null;
        // Another partner's list is empty, exactly like a partner without webhooks.
        if (named && !actsFor(ctx.principal, named)) return [];
        const gpid = named ?? (isOperator(ctx.principal) ? null : ctx.principal.partnerGpid);
        if (!gpid && !isOperator(ctx.principal)) return [];
        return webhookStore.list(ctx.em, gpid);
      },
    }),
    webhook: t.field({
      type: WebhookRef,
      nullable: true,
      args: { webhookId: t.arg.id({ required: true }) },
      authScopes: SCOPES,
      description: "One webhook of your partner; another partner's answers null like a missing one.",
      resolve: (_root, args, ctx) => loadWebhook(ctx, String(args.webhookId)).catch((err: unknown) => (err instanceof DomainError && err.code === 'NOT_FOUND' ? null : Promise.reject(err))),
    }),
    webhookDelivery: t.field({
      type: DeliveryRef,
      nullable: true,
      args: { deliveryId: t.arg.id({ required: true }) },
      authScopes: SCOPES,
      description: "One delivery with its attempt log; another partner's answers null like a missing one.",
      resolve: (_root, args, ctx) =>
        loadDelivery(ctx, String(args.deliveryId)).then(
          (found) => found.delivery,
          (err: unknown) => (err instanceof DomainError && err.code === 'NOT_FOUND' ? null : Promise.reject(err)),
        ),
    }),
  }));

  /** Run `work` in one transaction on its own entity manager (load inside it: SQLite has one connection). */
  const commit = async <T>(ctx: SubgraphContext, work: (em: EntityManager) => T | Promise<T>, wake = false): Promise<T> => {
    const result = await ctx.em.transactional(async (em) => work(em));
    services.publishCommitted();
    if (wake) wakeup.wake();
    return result;
  };

  builder.mutationFields((t) => ({
    createWebhook: t.field({
      type: SecretRef,
      description: `Register an endpoint; answers its whsec_ secret once. At most ${MAX_WEBHOOKS_PER_PARTNER} per partner. Retries span about ${Math.round(scheduleSpanMs(settings) / 3600_000)} h before a delivery fails.`,
      args: { input: t.arg({ type: CreateInput, required: true }) },
      authScopes: SCOPES,
      resolve: async (_root, { input }, ctx) => {
        const gpid = input.partnerGpid ? String(input.partnerGpid) : ctx.principal.partnerGpid;
        if (!gpid) throw validationError([{ field: 'partner_gpid', message: 'is required for a credential without a partner' }]);
        if (!actsFor(ctx.principal, gpid)) throw new DomainError('FORBIDDEN', 'A webhook can only be registered for your own partner.');
        return commit(ctx, (em) => createWebhook(em, gpid, { url: input.url, eventTypes: input.eventTypes, description: input.description ?? null }, policy, new Date()));
      },
    }),
    updateWebhook: t.field({
      type: WebhookRef,
      description: 'Change an endpoint\'s URL, event types or description. Deliveries already queued go to the new URL with their body unchanged.',
      args: { webhookId: t.arg.id({ required: true }), input: t.arg({ type: UpdateInput, required: true }) },
      authScopes: SCOPES,
      resolve: async (_root, { webhookId, input }, ctx) => {
        return commit(ctx, async (em) => {
          const webhook = await loadWebhook(ctx, String(webhookId), em);
          const description = input.description === undefined || input.description === null ? undefined : input.description === '' ? null : input.description;
          await updateWebhook(webhook, { url: input.url ?? undefined, eventTypes: input.eventTypes ?? undefined, description }, policy);
          return webhook;
        });
      },
    }),
    sendWebhookSample: t.field({
      type: DeliveryRef,
      description:
        'Queue a sample of any catalog event type to the endpoint, whatever its filter: the payload shape of that type with made-up ids and "sample": true, signed, one attempt. Follow it in the delivery log.',
      args: { webhookId: t.arg.id({ required: true }), eventType: t.arg.string({ required: true, description: 'A type of webhookEventTypes.' }) },
      authScopes: SCOPES,
      resolve: async (_root, args, ctx) => {
        return commit(ctx, async (em) => queueSample(em, await loadWebhook(ctx, String(args.webhookId), em), args.eventType, new Date()), true);
      },
    }),
    removeWebhook: t.field({
      type: WebhookRef,
      description: 'Remove an endpoint: it receives nothing more and its waiting deliveries are cancelled.',
      args: { webhookId: t.arg.id({ required: true }) },
      authScopes: SCOPES,
      resolve: async (_root, args, ctx) => {
        return commit(ctx, async (em) => {
          const webhook = await loadWebhook(ctx, String(args.webhookId), em);
          await removeWebhook(em, webhook, new Date());
          return webhook;
        });
      },
    }),
    rotateWebhookSecret: t.field({
      type: SecretRef,
      description: `Replace the signing secret (shown once). For overlapSeconds (default ${Math.round(settings.rotationOverlapMs / 1000)}, at most ${MAX_OVERLAP_SECONDS}) deliveries carry both signatures, new first.`,
      args: { webhookId: t.arg.id({ required: true }), overlapSeconds: t.arg.int() },
      authScopes: SCOPES,
      resolve: async (_root, args, ctx) => {
        const overlap = args.overlapSeconds ?? Math.round(settings.rotationOverlapMs / 1000);
        if (overlap < 0 || overlap > MAX_OVERLAP_SECONDS) throw validationError([{ field: 'overlap_seconds', message: `must be from 0 to ${MAX_OVERLAP_SECONDS}` }]);
        return commit(ctx, async (em) => {
          const webhook = await loadWebhook(ctx, String(args.webhookId), em);
          return { webhook, secret: rotateWebhookSecret(webhook, overlap * 1000, new Date()) };
        });
      },
    }),
    disableWebhook: t.field({
      type: WebhookRef,
      description: 'Disable an endpoint (reason partner): its waiting deliveries are cancelled and nothing is sent to it until enableWebhook; a test ping still reaches it. webhook.endpoint.disabled is emitted. An endpoint already disabled is answered unchanged.',
      args: { webhookId: t.arg.id({ required: true }) },
      authScopes: SCOPES,
      resolve: async (_root, args, ctx) => {
        return commit(ctx, async (em) => {
          const webhook = await loadWebhook(ctx, String(args.webhookId), em);
          await disableWebhook(em, webhook, 'partner', null, new Date());
          return webhook;
        });
      },
    }),
    enableWebhook: t.field({
      type: WebhookRef,
      description: 'Enable an endpoint again after it was disabled (410 Gone, persistent failure, or by its partner).',
      args: { webhookId: t.arg.id({ required: true }) },
      authScopes: SCOPES,
      resolve: async (_root, args, ctx) => {
        return commit(ctx, async (em) => {
          const webhook = await loadWebhook(ctx, String(args.webhookId), em);
          enableWebhook(webhook);
          return webhook;
        });
      },
    }),
    sendWebhookTestPing: t.field({
      type: DeliveryRef,
      description:
        'Queue a signed test.ping (one attempt). When the receiver answers 2xx and also refuses a probe signed with a wrong key (4xx), webhook.test_ping.verified is emitted: the certification evidence of signature verification.',
      args: { webhookId: t.arg.id({ required: true }) },
      authScopes: SCOPES,
      resolve: async (_root, args, ctx) => {
        return commit(ctx, async (em) => queueTestPing(em, await loadWebhook(ctx, String(args.webhookId), em), new Date()), true);
      },
    }),
    redeliverWebhookDelivery: t.field({
      type: DeliveryRef,
      description: 'Send a finished delivery again under the same delivery id (webhook-id), with a fresh retry schedule.',
      args: {
        deliveryId: t.arg.id({ required: true }),
        webhookId: t.arg.id({ description: 'When given, the delivery must be one of this endpoint (else NOT_FOUND, like a missing one).' }),
      },
      authScopes: SCOPES,
      resolve: async (_root, args, ctx) => {
        return commit(
          ctx,
          async (em) => {
            const { delivery, webhook } = await loadDelivery(ctx, String(args.deliveryId), em);
            if (args.webhookId && delivery.webhookId !== String(args.webhookId)) throw new DomainError('NOT_FOUND', `Delivery ${String(args.deliveryId)} does not exist.`);
            redeliver(delivery, webhook, settings, new Date());
            return delivery;
          },
          true,
        );
      },
    }),
  }));
}
