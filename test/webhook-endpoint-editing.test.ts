import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { eventually } from './support/identity.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { PATIENCE_MS } from './support/patience.js';

/**
 * The webhook page's features on live APIs, each as a GraphQL field and its REST twin: truthful
 * signature verification (and the certification items it and a first API call complete), editing an
 * endpoint, samples of any catalog event type, the 24 h success rate, the event catalog without
 * duplicates. Another partner's endpoint looks missing on both.
 */
const ENV = { SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_POLL_MS: '50', SVC_WEBHOOK_TIMEOUT_MS: String(PATIENCE_MS) };

interface Attempt { statusCode: number | null; probeStatusCode: number | null; signatureCheck: string; responseExcerpt: string | null; error: string | null }
interface Delivery { deliveryId: string; eventType: string; sample: boolean; status: string; body: string; log: Attempt[] }

describe('webhook endpoints: verification, editing, samples, success rate', () => {
  let t: TestSystem;
  let receiver: WebhookReceiver;
  let partnerA: string;
  let tokenA: string;
  let tokenB: string;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await bootSystem(ENV);
    partnerA = await registerPartner(t, 'Edited Hooks Health');
    const partnerB = await registerPartner(t, 'Nosy Clinic');
    tokenA = await apiToken(t, partnerA, ['cms.webhooks.manage', 'cms.fhir.r4.read']);
    tokenB = await apiToken(t, partnerB, ['cms.webhooks.manage']);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  async function register(url: string, eventTypes: string[]): Promise<{ id: string; secret: string }> {
    const res = await t.request({ method: 'POST', url: '/api/partner/webhooks', token: tokenA, body: { url, event_types: eventTypes } });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json() as { webhook_id: string; secret: string };
    return { id: body.webhook_id, secret: body.secret };
  }

  async function settled(deliveryId: string): Promise<Delivery> {
    return eventually(async () => {
      const res = await t.graphql<{ webhookDelivery: Delivery | null }>(
        'query($d: ID!) { webhookDelivery(deliveryId: $d) { deliveryId eventType sample status body log { statusCode probeStatusCode signatureCheck responseExcerpt error } } }',
        { d: deliveryId },
        tokenA,
      );
      const delivery = res.data!.webhookDelivery!;
      expect(['SUCCEEDED', 'FAILED']).toContain(delivery.status);
      return delivery;
    });
  }

  async function ping(webhookId: string): Promise<Delivery> {
    const res = await t.graphql<{ sendWebhookTestPing: { deliveryId: string } }>('mutation($w: ID!) { sendWebhookTestPing(webhookId: $w) { deliveryId } }', { w: webhookId }, tokenA);
    return settled(res.data!.sendWebhookTestPing.deliveryId);
  }

  async function hook(webhookId: string, token = tokenA) {
    const res = await t.graphql<{ webhook: { url: string; eventTypes: string[]; description: string | null; signatureVerifiedAt: string | null; recentDeliveryStats: { attempts: number; succeeded: number; failed: number; successRate: number | null } } | null }>(
      'query($w: ID!) { webhook(webhookId: $w) { url eventTypes description signatureVerifiedAt recentDeliveryStats { attempts succeeded failed successRate } } }',
      { w: webhookId },
      token,
    );
    return res.data!.webhook;
  }

  const certItem = async (id: string) => {
    const cert = await t.graphql<{ certificationChecklists: { items: { id: string; observation: string | null }[] }[]; partner: { certification: { checklists: { items: { id: string; complete: boolean; evidence: { detail: string }[] }[] }[] } } }>(
      'query($g: ID!) { certificationChecklists { items { id observation } } partner(gpid: $g) { certification { checklists { items { id complete evidence { detail } } } } } }',
      { g: partnerA },
    );
    expect(cert.errors).toBeUndefined();
    const observation = cert.data!.certificationChecklists.flatMap((c) => c.items).find((i) => i.id === id)!.observation;
    return { ...cert.data!.partner.certification.checklists.flatMap((c) => c.items).find((i) => i.id === id)!, observation };
  };

  it('a 2xx ping is reachability only: VERIFIED needs the mis-signed probe refused with 4xx, and only then is the certification item complete', async () => {
    const lax = receiver.path('lax', { trusting: true });
    const laxHook = await register(lax, ['pipeline.sync.completed']);
    const laxPing = await ping(laxHook.id);
    expect(laxPing.status).toBe('SUCCEEDED');
    expect(laxPing.log[0]).toMatchObject({ statusCode: 200, probeStatusCode: 200, signatureCheck: 'NOT_VERIFIED' });
    expect((await hook(laxHook.id))!.signatureVerifiedAt).toBeNull();
    const item = await certItem('webhook_signature_verification');
    expect(item.complete).toBe(false);
    expect(item.observation).toMatch(/wrong signature was refused with 4xx/);

    const strict = receiver.path('strict');
    const strictHook = await register(strict, ['pipeline.sync.completed']);
    receiver.setSecrets('strict', [strictHook.secret]);
    const good = await ping(strictHook.id);
    expect(good.log[0]).toMatchObject({ statusCode: 200, probeStatusCode: 401, signatureCheck: 'VERIFIED', error: null });
    expect((await hook(strictHook.id))!.signatureVerifiedAt).not.toBeNull();
    await eventually(async () => {
      const verified = await certItem('webhook_signature_verification');
      expect(verified.complete).toBe(true);
      expect(verified.evidence[0]?.detail).toMatch(/wrong signature refused \(401\)/);
    });
    // REST: the same check per attempt, in its REST spelling.
    const rest = await t.request({ method: 'GET', url: `/api/partner/webhooks/${strictHook.id}/deliveries/${good.deliveryId}`, token: tokenA });
    expect(rest.statusCode).toBe(200);
    expect(rest.json().log[0]).toMatchObject({ probe_status_code: 401, signature_check: 'verified', response_excerpt: 'answer 200' });
    expect(rest.json().body).toBe(good.body);
  });

  it('counts a FHIR read with an API token as the first authenticated call', async () => {
    expect((await certItem('sandbox_first_authenticated_call')).complete).toBe(false);
    const read = await fhir(t, tokenA, 'GET', '/Patient?_count=1');
    expect(read.statusCode).toBe(200);
    await eventually(async () => {
      const first = await certItem('sandbox_first_authenticated_call');
      expect(first.complete).toBe(true);
      expect(first.evidence).toHaveLength(1);
      expect(first.evidence[0]!.detail).toMatch(/^Authenticated request .+ with tok_/);
    });
  });

  it('edits URL, event types and description over GraphQL and PATCH, with the same validation; a new URL is unverified again', async () => {
    const url = receiver.path('edit-a');
    const { id, secret } = await register(url, ['pipeline.sync.completed']);
    receiver.setSecrets('edit-a', [secret]);
    await ping(id);
    expect((await hook(id))!.signatureVerifiedAt).not.toBeNull();

    const moved = receiver.path('edit-b');
    const gql = await t.graphql<{ updateWebhook: { url: string; eventTypes: string[]; signatureVerifiedAt: string | null } }>(
      'mutation($w: ID!, $i: UpdateWebhookInput!) { updateWebhook(webhookId: $w, input: $i) { url eventTypes signatureVerifiedAt } }',
      { w: id, i: { url: moved, eventTypes: ['tefca.*', 'identity.matched'] } },
      tokenA,
    );
    expect(gql.errors).toBeUndefined();
    // identity.matched is an old alias: stored under the spec's name.
    expect(gql.data!.updateWebhook).toEqual({ url: moved, eventTypes: ['tefca.*', 'identity.match'], signatureVerifiedAt: null });

    const patched = await t.request({ method: 'PATCH', url: `/api/partner/webhooks/${id}`, token: tokenA, body: { description: 'moved receiver', event_types: ['pipeline.*'] } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ webhook_id: id, url: moved, event_types: ['pipeline.*'], description: 'moved receiver', signature_verified_at: null });
    const cleared = await t.request({ method: 'PATCH', url: `/api/partner/webhooks/${id}`, token: tokenA, body: { description: null } });
    expect(cleared.json().description).toBeNull();

    // Validation names the field, on both.
    const bad = await t.request({ method: 'PATCH', url: `/api/partner/webhooks/${id}`, token: tokenA, body: { event_types: ['nope.nothing'] } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors).toEqual([expect.objectContaining({ field: 'event_types.0' })]);
    const empty = await t.request({ method: 'PATCH', url: `/api/partner/webhooks/${id}`, token: tokenA, body: {} });
    expect(empty.statusCode).toBe(422);
    const unknown = await t.request({ method: 'PATCH', url: `/api/partner/webhooks/${id}`, token: tokenA, body: { secret: 'x' } });
    expect(unknown.json().errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'secret' })]));
    const badUrl = await t.graphql('mutation($w: ID!) { updateWebhook(webhookId: $w, input: { url: "ftp://example.org/x" }) { url } }', { w: id }, tokenA);
    expect(badUrl.errors?.[0]?.extensions?.['code']).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(badUrl.errors?.[0]?.extensions?.['fieldErrors'])).toContain('url');

    // Another partner: missing, on both.
    const other = await t.request({ method: 'PATCH', url: `/api/partner/webhooks/${id}`, token: tokenB, body: { url: 'https://example.org/stolen' } });
    expect(other.statusCode).toBe(404);
    const otherGql = await t.graphql('mutation($w: ID!) { updateWebhook(webhookId: $w, input: { description: "x" }) { url } }', { w: id }, tokenB);
    expect(otherGql.errors?.[0]?.extensions?.['code']).toBe('NOT_FOUND');
    expect((await hook(id))!.url).toBe(moved);
  });

  it('sends a signed sample of any catalog event type, whatever the filter; the success rate counts the 24 h attempts', async () => {
    const url = receiver.path('samples');
    const { id, secret } = await register(url, ['pipeline.sync.completed']);
    receiver.setSecrets('samples', [secret]);

    const gql = await t.graphql<{ sendWebhookSample: { deliveryId: string; sample: boolean; eventType: string } }>(
      'mutation($w: ID!) { sendWebhookSample(webhookId: $w, eventType: "identity.match") { deliveryId sample eventType } }',
      { w: id },
      tokenA,
    );
    expect(gql.data!.sendWebhookSample).toMatchObject({ sample: true, eventType: 'identity.match' });
    const sent = await settled(gql.data!.sendWebhookSample.deliveryId);
    expect(sent.status).toBe('SUCCEEDED');
    const body = JSON.parse(sent.body) as { type: string; sample: boolean; partner_gpid: string; data: Record<string, unknown> };
    expect(body).toMatchObject({ type: 'identity.match', sample: true, partner_gpid: partnerA, data: { event: 'identity.match', match_type: 'PARTIAL' } });
    expect(receiver.state('samples').processed.get(sent.deliveryId)).toEqual(body);

    const rest = await t.request({ method: 'POST', url: `/api/partner/webhooks/${id}/samples`, token: tokenA, body: { event_type: 'tefca.xca.query.completed' } });
    expect(rest.statusCode, rest.body).toBe(202);
    expect(rest.json()).toMatchObject({ event_type: 'tefca.xca.query.completed', sample: true, status: 'pending' });
    await settled(rest.json().delivery_id as string);

    const unknown = await t.request({ method: 'POST', url: `/api/partner/webhooks/${id}/samples`, token: tokenA, body: { event_type: 'made.up' } });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors).toEqual([expect.objectContaining({ field: 'event_type' })]);
    const other = await t.request({ method: 'POST', url: `/api/partner/webhooks/${id}/samples`, token: tokenB, body: { event_type: 'identity.match' } });
    expect(other.statusCode).toBe(404);

    const stats = (await hook(id))!.recentDeliveryStats;
    expect(stats).toEqual({ attempts: 2, succeeded: 2, failed: 0, successRate: 1 });
    const listed = await t.request({ method: 'GET', url: '/api/partner/webhooks', token: tokenA });
    expect((listed.json().webhooks as { webhook_id: string; recent_delivery_stats: unknown }[]).find((w) => w.webhook_id === id)?.recent_delivery_stats).toEqual({ attempts: 2, succeeded: 2, failed: 0, success_rate: 1 });

    await t.request({ method: 'POST', url: `/api/partner/webhooks/${id}/disable`, token: tokenA });
    const disabled = await t.request({ method: 'POST', url: `/api/partner/webhooks/${id}/samples`, token: tokenA, body: { event_type: 'identity.match' } });
    expect(disabled.statusCode).toBe(409);
  });

  it('lists each event type once, under the spec names', async () => {
    const res = await t.request({ method: 'GET', url: '/api/partner/webhook-event-types', token: tokenA });
    const types = (res.json().event_types as { type: string; status: string }[]);
    const names = types.map((e) => e.type);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['identity.match', 'identity.merge']));
    expect(names).not.toContain('identity.matched');
    expect(types.find((e) => e.type === 'identity.match')?.status).toBe('emitted');
  });
});
