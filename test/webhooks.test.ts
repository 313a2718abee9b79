import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, registerPartner } from './support/fhir.js';
import { eventsOf, eventually } from './support/identity.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { USE_POSTGRES } from './support/databases.js';
import { PATIENCE_MS } from './support/patience.js';

/**
 * A fast schedule: 4 attempts, 40 ms, 80 ms, 160 ms apart (± jitter), capped at 200 ms. An attempt
 * may take as long as a busy machine needs (no test here is about the attempt timeout), so that a
 * slow answer never becomes a failed attempt.
 */
const FAST = {
  SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
  SVC_WEBHOOK_RETRY_BASE_MS: '40',
  SVC_WEBHOOK_BACKOFF_FACTOR: '2',
  SVC_WEBHOOK_RETRY_MAX_DELAY_MS: '200',
  SVC_WEBHOOK_MAX_ATTEMPTS: '4',
  SVC_WEBHOOK_POLL_MS: '50',
  SVC_WEBHOOK_TIMEOUT_MS: String(PATIENCE_MS),
  SVC_WEBHOOK_ENDPOINT_CONCURRENCY: '2',
};

interface Attempt {
  attempt: number;
  trigger: string;
  statusCode: number | null;
  error: string | null;
  nextRetryAt: string | null;
  responseExcerpt: string | null;
}
interface Delivery {
  deliveryId: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastError: string | null;
  log: Attempt[];
}

const DELIVERY_FIELDS = 'deliveryId eventId eventType status attempts lastError log { attempt trigger statusCode error nextRetryAt responseExcerpt }';

describe('webhooks: Standard Webhooks signing, durable retries, delivery log, tenancy', () => {
  let t: TestSystem;
  let receiver: WebhookReceiver;
  let partnerA: string;
  let partnerB: string;
  let tokenA: string;
  let tokenB: string;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await bootSystem(FAST);
    partnerA = await registerPartner(t, 'Hooked Health');
    partnerB = await registerPartner(t, 'Other Clinic');
    tokenA = await apiToken(t, partnerA, ['cms.webhooks.manage']);
    tokenB = await apiToken(t, partnerB, ['cms.webhooks.manage']);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  /** Register over REST as `token`; answers the id and the secret. */
  async function register(token: string, url: string, eventTypes: string[]): Promise<{ id: string; secret: string }> {
    const res = await t.request({ method: 'POST', url: '/api/partner/webhooks', token, body: { url, event_types: eventTypes, description: 'test receiver' } });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json() as { webhook_id: string; secret: string };
    return { id: body.webhook_id, secret: body.secret };
  }

  /** A pipeline.sync.completed event for `gpid` (the operator drives a sync job). */
  async function syncCompleted(gpid: string): Promise<string> {
    const job = await t.graphql<{ createSyncJob: { jobId: string } }>('mutation($p: ID!) { createSyncJob(partnerGpid: $p, resourceTypes: ["Patient"]) { jobId } }', { p: gpid });
    const jobId = job.data!.createSyncJob.jobId;
    await t.graphql('mutation($j: ID!) { completeSyncJob(jobId: $j, recordsProcessed: 7) { status } }', { j: jobId });
    return jobId;
  }

  async function deliveries(webhookId: string, token: string = t.operatorToken): Promise<Delivery[]> {
    const res = await t.graphql<{ webhook: { deliveries: { edges: { node: Delivery }[] } } | null }>(
      `query($id: ID!) { webhook(webhookId: $id) { deliveries(first: 50) { edges { node { ${DELIVERY_FIELDS} } } } } }`,
      { id: webhookId },
      token,
    );
    expect(res.errors).toBeUndefined();
    return res.data!.webhook?.deliveries.edges.map((e) => e.node) ?? [];
  }

  async function webhookState(webhookId: string) {
    const res = await t.graphql<{ webhook: { enabled: boolean; disabledReason: string | null } | null }>('query($id: ID!) { webhook(webhookId: $id) { enabled disabledReason } }', { id: webhookId });
    return res.data!.webhook;
  }

  it('registers, lists and removes over REST; another partner sees nothing and gets 404 like a missing id', async () => {
    const { id, secret } = await register(tokenA, receiver.path('crud'), ['pipeline.sync.completed', 'tefca.*']);
    expect(id).toMatch(/^whk_/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const listA = await t.request({ url: '/api/partner/webhooks', token: tokenA });
    expect(listA.statusCode).toBe(200);
    const hook = (listA.json() as { webhooks: Record<string, unknown>[] }).webhooks.find((w) => w['webhook_id'] === id);
    expect(hook).toMatchObject({ partner_gpid: partnerA, event_types: ['pipeline.sync.completed', 'tefca.*'], enabled: true });
    expect(JSON.stringify(listA.json())).not.toContain('whsec_');

    const listB = await t.request({ url: '/api/partner/webhooks', token: tokenB });
    expect((listB.json() as { webhooks: unknown[] }).webhooks).toEqual([]);
    const peek = await t.request({ url: `/api/partner/webhooks?partner_gpid=${partnerA}`, token: tokenB });
    expect((peek.json() as { webhooks: unknown[] }).webhooks).toEqual([]);

    const foreign = await t.request({ method: 'DELETE', url: `/api/partner/webhooks?webhook_id=${id}`, token: tokenB });
    const missing = await t.request({ method: 'DELETE', url: '/api/partner/webhooks?webhook_id=whk_01hzzzzzzzzzzzzzzzzzzzzzzz', token: tokenB });
    expect(foreign.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(foreign.json().code).toBe(missing.json().code);
    expect(foreign.json().detail.replace(id, 'ID')).toBe(missing.json().detail.replace('whk_01hzzzzzzzzzzzzzzzzzzzzzzz', 'ID'));

    const removed = await t.request({ method: 'DELETE', url: `/api/partner/webhooks?webhook_id=${id}`, token: tokenA });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ webhook_id: id, removed: true, enabled: false });
    const after = await t.request({ url: '/api/partner/webhooks', token: tokenA });
    expect((after.json() as { webhooks: { webhook_id: string }[] }).webhooks.map((w) => w.webhook_id)).not.toContain(id);
  });

  it('refuses bad input naming the field, and lists the TEFCA exchange events', async () => {
    const bad = await t.request({ method: 'POST', url: '/api/partner/webhooks', token: tokenA, body: { url: receiver.path('bad'), event_types: ['pipeline.sync.completed', 'no.such.event'] } });
    expect(bad.statusCode).toBe(422);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    expect(JSON.stringify(bad.json())).toContain('event_types.1');
    const noUrl = await t.request({ method: 'POST', url: '/api/partner/webhooks', token: tokenA, body: { url: 'ftp://example.com/x', event_types: ['*'] } });
    expect(noUrl.statusCode).toBe(422);
    expect(JSON.stringify(noUrl.json())).toContain('"url"');
    const noId = await t.request({ method: 'DELETE', url: '/api/partner/webhooks', token: tokenA });
    expect(noId.statusCode).toBe(422);
    expect(JSON.stringify(noId.json())).toContain('webhook_id');

    const types = await t.graphql<{ webhookEventTypes: { type: string; status: string }[] }>('{ webhookEventTypes { type status } }', {}, tokenA);
    const names = types.data!.webhookEventTypes.map((e) => e.type);
    expect(names).toEqual(expect.arrayContaining(['pipeline.sync.completed', 'tefca.xcpd.query.completed', 'tefca.xca.query.completed', 'tefca.xca.retrieve.completed', 'webhook.test_ping.verified']));
  });

  it('a receiver that fails twice then succeeds ends with the event once, every attempt verified and under one webhook-id', async () => {
    const url = receiver.path('flaky', { script: [{ status: 500 }, { status: 503, headers: { 'retry-after': '0' } }] });
    const { id, secret } = await register(tokenA, url, ['pipeline.sync.completed']);
    receiver.setSecrets('flaky', [secret]);
    // Another partner's event must not reach this endpoint.
    await syncCompleted(partnerB);
    const jobId = await syncCompleted(partnerA);

    await eventually(async () => expect(receiver.state('flaky').processed.size).toBe(1));
    const receipts = receiver.of('flaky');
    expect(receipts.map((r) => r.status)).toEqual([500, 503, 200]);
    expect(new Set(receipts.map((r) => r.id)).size).toBe(1);
    expect(receipts.every((r) => r.verifiedWith === 0)).toBe(true);
    const [event] = [...receiver.state('flaky').processed.values()] as { type: string; partner_gpid: string; data: Record<string, unknown> }[];
    expect(event).toMatchObject({ type: 'pipeline.sync.completed', partner_gpid: partnerA, data: { event: 'pipeline.sync.completed', job_id: jobId, records_processed: 7 } });

    const [delivery] = await eventually(async () => {
      const list = await deliveries(id, tokenA);
      expect(list[0]?.status).toBe('SUCCEEDED');
      return list;
    });
    expect(delivery!.deliveryId).toBe(receipts[0]!.id);
    expect(delivery!.log.map((a) => a.statusCode)).toEqual([500, 503, 200]);
    expect(delivery!.log[0]!.nextRetryAt).not.toBeNull();
    expect(delivery!.log[2]!.nextRetryAt).toBeNull();
    expect(delivery!.log[0]!.responseExcerpt).toBe('answer 500');
  });

  it('redelivers under the same delivery id; the receiver deduplicates it', async () => {
    const url = receiver.path('redeliver');
    const { id, secret } = await register(tokenA, url, ['pipeline.*']);
    receiver.setSecrets('redeliver', [secret]);
    await syncCompleted(partnerA);
    const [first] = await eventually(async () => {
      const list = await deliveries(id, tokenA);
      expect(list[0]?.status).toBe('SUCCEEDED');
      return list;
    });
    const res = await t.graphql<{ redeliverWebhookDelivery: { deliveryId: string; status: string } }>(
      'mutation($d: ID!) { redeliverWebhookDelivery(deliveryId: $d) { deliveryId status } }',
      { d: first!.deliveryId },
      tokenA,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.redeliverWebhookDelivery).toEqual({ deliveryId: first!.deliveryId, status: 'PENDING' });
    await eventually(async () => expect(receiver.of('redeliver')).toHaveLength(2));
    expect(receiver.of('redeliver').map((r) => r.id)).toEqual([first!.deliveryId, first!.deliveryId]);
    expect(receiver.state('redeliver').processed.size).toBe(1);
    const [after] = await eventually(async () => {
      const list = await deliveries(id, tokenA);
      expect(list[0]?.log).toHaveLength(2);
      return list;
    });
    expect(after!.log.map((a) => a.trigger)).toEqual(['schedule', 'manual']);

    // Another partner cannot see or redeliver it: exactly like a missing delivery.
    const foreign = await t.graphql('mutation($d: ID!) { redeliverWebhookDelivery(deliveryId: $d) { deliveryId } }', { d: first!.deliveryId }, tokenB);
    expect(foreign.errors?.[0]?.extensions?.['code']).toBe('NOT_FOUND');
    const read = await t.graphql<{ webhookDelivery: unknown }>('query($d: ID!) { webhookDelivery(deliveryId: $d) { deliveryId } }', { d: first!.deliveryId }, tokenB);
    expect(read.data!.webhookDelivery).toBeNull();
  });

  it('signs with both secrets during a rotation overlap, then with the new one only', async () => {
    const url = receiver.path('rotate');
    const { id, secret: oldSecret } = await register(tokenA, url, ['pipeline.sync.completed']);
    const rotated = await t.graphql<{ rotateWebhookSecret: { secret: string; webhook: { previousSecretExpiresAt: string | null } } }>(
      'mutation($w: ID!) { rotateWebhookSecret(webhookId: $w, overlapSeconds: 3600) { secret webhook { previousSecretExpiresAt } } }',
      { w: id },
      tokenA,
    );
    const newSecret = rotated.data!.rotateWebhookSecret.secret;
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.data!.rotateWebhookSecret.webhook.previousSecretExpiresAt).not.toBeNull();
    receiver.setSecrets('rotate', [oldSecret, newSecret]);
    await syncCompleted(partnerA);
    await eventually(async () => expect(receiver.state('rotate').processed.size).toBe(1));
    const [overlap] = receiver.of('rotate');
    expect(overlap!.signatures).toHaveLength(2);
    const headers = { 'webhook-id': overlap!.id, 'webhook-timestamp': overlap!.timestamp, 'webhook-signature': overlap!.signatures.join(' ') };
    expect(() => new Webhook(oldSecret).verify(overlap!.body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(overlap!.body, headers)).not.toThrow();

    // A rotation without overlap: only the newest secret signs.
    const again = await t.graphql<{ rotateWebhookSecret: { secret: string } }>('mutation($w: ID!) { rotateWebhookSecret(webhookId: $w, overlapSeconds: 0) { secret } }', { w: id }, tokenA);
    const newest = again.data!.rotateWebhookSecret.secret;
    receiver.setSecrets('rotate', [newest]);
    await syncCompleted(partnerA);
    await eventually(async () => expect(receiver.state('rotate').processed.size).toBe(2));
    const last = receiver.of('rotate').at(-1)!;
    expect(last.signatures).toHaveLength(1);
    const lastHeaders = { 'webhook-id': last.id, 'webhook-timestamp': last.timestamp, 'webhook-signature': last.signatures[0]! };
    expect(() => new Webhook(newSecret).verify(last.body, lastHeaders)).toThrow();
  });

  it('treats 410 Gone as unsubscribe: the endpoint is disabled at once, with webhook.endpoint.disabled', async () => {
    const url = receiver.path('gone', { fallback: { status: 410 } });
    const { id, secret } = await register(tokenA, url, ['pipeline.sync.completed']);
    receiver.setSecrets('gone', [secret]);
    await syncCompleted(partnerA);
    await eventually(async () => expect(await webhookState(id)).toEqual({ enabled: false, disabledReason: 'gone' }));
    expect(receiver.of('gone')).toHaveLength(1);
    const events = await eventually(async () => {
      const found = (await eventsOf(t, ['webhook.endpoint.disabled'])).filter((e) => e.data['webhook_id'] === id);
      expect(found).toHaveLength(1);
      return found;
    });
    expect(events[0]).toMatchObject({ partnerGpid: partnerA, data: { reason: 'gone', event: 'webhook.endpoint.disabled' } });
    // Disabled: later events create no attempt.
    await syncCompleted(partnerA);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.of('gone')).toHaveLength(1);
  });

  it('disables an endpoint after a whole schedule of failures, and says so', async () => {
    const url = receiver.path('down', { fallback: { status: 500 } });
    const { id, secret } = await register(tokenA, url, ['pipeline.sync.completed']);
    receiver.setSecrets('down', [secret]);
    await syncCompleted(partnerA);
    await eventually(async () => expect(await webhookState(id)).toEqual({ enabled: false, disabledReason: 'persistent_failure' }));
    const [delivery] = await deliveries(id, tokenA);
    expect(delivery).toMatchObject({ status: 'FAILED', attempts: 4 });
    expect(delivery!.log.at(-1)!.nextRetryAt).toBeNull();
    await eventually(async () => expect((await eventsOf(t, ['webhook.endpoint.disabled'])).some((e) => e.data['webhook_id'] === id && e.data['reason'] === 'persistent_failure')).toBe(true));

    // Enabled again, it receives again.
    receiver.state('down').fallback = { status: 204 };
    await t.graphql('mutation($w: ID!) { enableWebhook(webhookId: $w) { enabled } }', { w: id }, tokenA);
    await syncCompleted(partnerA);
    await eventually(async () => expect(receiver.state('down').processed.size).toBe(1));
  });

  it('test.ping: verified only when the receiver accepts the signed ping and refuses a forged one', async () => {
    const good = receiver.path('ping-good');
    const { id, secret } = await register(tokenA, good, ['pipeline.sync.completed']);
    receiver.setSecrets('ping-good', [secret]);
    const ping = await t.graphql<{ sendWebhookTestPing: { deliveryId: string; eventType: string } }>('mutation($w: ID!) { sendWebhookTestPing(webhookId: $w) { deliveryId eventType } }', { w: id }, tokenA);
    expect(ping.data!.sendWebhookTestPing.eventType).toBe('test.ping');
    const deliveryId = ping.data!.sendWebhookTestPing.deliveryId;
    const verified = await eventually(async () => {
      const found = (await eventsOf(t, ['webhook.test_ping.verified'])).filter((e) => e.data['delivery_id'] === deliveryId);
      expect(found).toHaveLength(1);
      return found[0]!;
    });
    expect(verified).toMatchObject({ partnerGpid: partnerA, data: { webhook_id: id, status: 200 } });
    expect(receiver.of('ping-good').map((r) => r.status)).toEqual([200, 401]);
    // The partner's certification records it as evidence of signature verification.
    await eventually(async () => {
      const cert = await t.graphql<{ partner: { certification: { checklists: { items: { id: string; complete: boolean; evidence: { detail: string }[] }[] }[] } } }>(
        'query($g: ID!) { partner(gpid: $g) { certification { checklists { items { id complete evidence { detail } } } } } }',
        { g: partnerA },
      );
      const item = cert.data!.partner.certification.checklists.flatMap((c) => c.items).find((i) => i.id === 'webhook_signature_verification');
      expect(item?.complete).toBe(true);
      expect(item?.evidence.map((e) => e.detail).join(' ')).toContain(deliveryId);
    });

    // A receiver that accepts anything is not verified, and the log says why.
    const lax = receiver.path('ping-lax', { trusting: true });
    const laxHook = await register(tokenA, lax, ['pipeline.sync.completed']);
    const laxPing = await t.graphql<{ sendWebhookTestPing: { deliveryId: string } }>('mutation($w: ID!) { sendWebhookTestPing(webhookId: $w) { deliveryId } }', { w: laxHook.id }, tokenA);
    const [laxDelivery] = await eventually(async () => {
      const list = await deliveries(laxHook.id, tokenA);
      expect(list[0]?.status).toBe('SUCCEEDED');
      return list;
    });
    expect(laxDelivery!.deliveryId).toBe(laxPing.data!.sendWebhookTestPing.deliveryId);
    expect(laxDelivery!.lastError).toMatch(/not verified/);
    expect((await eventsOf(t, ['webhook.test_ping.verified'])).some((e) => e.data['delivery_id'] === laxDelivery!.deliveryId)).toBe(false);
  });

  it('caps attempts in flight per endpoint, so a slow receiver does not hold up another', async () => {
    // The slow receiver holds every request until the test lets it go.
    const slowUrl = receiver.path('slow', { fallback: { status: 200, held: true } });
    const fastUrl = receiver.path('fast');
    // A partner of its own: the register route allows 10 per minute per partner.
    const partnerC = await registerPartner(t, 'Slow Receiver Labs');
    const slow = await register(await apiToken(t, partnerC, ['cms.webhooks.manage']), slowUrl, ['pipeline.sync.completed']);
    const fast = await register(tokenB, fastUrl, ['pipeline.sync.completed']);
    receiver.setSecrets('slow', [slow.secret]);
    receiver.setSecrets('fast', [fast.secret]);
    for (let i = 0; i < 5; i++) await syncCompleted(partnerC);
    await eventually(async () => expect(receiver.state('slow').inFlight).toBe(2));
    await syncCompleted(partnerB);
    await eventually(async () => expect(receiver.state('fast').processed.size).toBe(1));
    // The other partner's event arrived while the slow endpoint held its two attempts, and no third
    // was sent beside them.
    expect(receiver.state('slow').processed.size).toBe(0);
    expect(receiver.state('slow').maxInFlight).toBe(2);
    receiver.release('slow');
    await eventually(async () => expect(receiver.state('slow').processed.size).toBe(5));
    expect(receiver.state('slow').maxInFlight).toBe(2);
  });
  // PostgreSQL: a second process's worker (SVC_ROLE=worker) on the same database and Redis claims
  // from the same table; every delivery is sent exactly once between them (no double claim).
  it.runIf(USE_POSTGRES)('two workers on PostgreSQL never send one delivery twice', async () => {
    const second = await bootSystem({ ...FAST, SVC_ROLE: 'worker', SVC_INTERNAL_SECRET: 'x'.repeat(40) }, { storage: t.storage });
    try {
      const partnerD = await registerPartner(t, 'Two Workers Health');
      const url = receiver.path('shared', { fallback: { status: 200, delayMs: 30 } });
      const hook = await register(await apiToken(t, partnerD, ['cms.webhooks.manage']), url, ['pipeline.sync.completed']);
      receiver.setSecrets('shared', [hook.secret]);
      for (let i = 0; i < 12; i++) await syncCompleted(partnerD);
      await eventually(async () => expect(receiver.state('shared').processed.size).toBe(12));
      await new Promise((r) => setTimeout(r, 500));
      const ids = receiver.of('shared').map((r) => r.id);
      expect(ids).toHaveLength(12);
      expect(new Set(ids).size).toBe(12);
    } finally {
      await second.system.stop();
    }
  });
});
