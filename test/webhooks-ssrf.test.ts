import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, registerPartner } from './support/fhir.js';
import { eventually } from './support/identity.js';
import { freshStorage, type TestStorage } from './support/databases.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/** The literal forms of an IPv4 address inside IPv6 (written out here, not by the code under test). */
function embeddedForms([a, b, c, d]: [number, number, number, number]): string[] {
  const v4 = `${a}.${b}.${c}.${d}`;
  const hi = ((a << 8) | b).toString(16);
  const lo = ((c << 8) | d).toString(16);
  const teredo = (x: number) => (x ^ 0xffff).toString(16);
  return [
    `::${v4}`, `::${hi}:${lo}`, `0:0:0:0:0:0:${hi}:${lo}`, // IPv4-compatible (deprecated)
    `::ffff:${v4}`, `::ffff:${hi}:${lo}`, `0000:0000:0000:0000:0000:FFFF:${hi}:${lo}`, // IPv4-mapped
    `::ffff:0:${v4}`, `::ffff:0:${hi}:${lo}`, // IPv4-translated (SIIT)
    `64:ff9b::${v4}`, `64:ff9b::${hi}:${lo}`, // NAT64 well-known prefix
    `64:ff9b:1::${hi}:${lo}`, `64:ff9b:1:${hi}:${c.toString(16)}:${(d << 8).toString(16)}::`, // NAT64 local-use, /96 and /48 layouts
    `2002:${hi}:${lo}::1`, `2002:${hi}:${lo}:abcd::42`, // 6to4
    `2001:0:4136:e378:8000:63bf:${teredo((a << 8) | b)}:${teredo((c << 8) | d)}`, // Teredo, client
    `2001:0:${hi}:${lo}:0:0:f7f7:f7f7`, // Teredo, server
  ];
}

const TARGETS: [number, number, number, number][] = [[127, 0, 0, 1], [169, 254, 169, 254], [10, 0, 0, 1]];

/** The default configuration: private, loopback, link-local and metadata receivers are refused. */
describe('webhooks: SSRF protection on endpoint URLs', () => {
  let t: TestSystem;
  let partnerToken: string;
  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    partnerToken = await apiToken(t, await registerPartner(t, 'Hook Probe Clinic'), ['cms.webhooks.manage']);
  });
  afterAll(() => t?.close());

  it('refuses private, loopback, link-local and metadata addresses, literal or by name, naming the field url', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/hook', 'http://10.0.0.8/hook', 'http://[::ffff:127.0.0.1]/', 'http://[fd00:ec2::254]/']) {
      const res = await t.request({ method: 'POST', url: '/api/partner/webhooks', body: { url, event_types: ['pipeline.sync.completed'] } });
      expect(res.statusCode, url).toBe(422);
      expect(res.headers['content-type']).toContain('application/problem+json');
      const problem = res.json() as { code: string; errors?: { field: string }[]; field_errors?: { field: string }[] };
      expect(problem.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(problem), url).toMatch(/"field":"url"/);
    }
    const graphql = await t.graphql('mutation { createWebhook(input: { url: "http://127.0.0.1/x", eventTypes: ["*"] }) { secret } }');
    expect(graphql.errors?.[0]?.extensions?.['code']).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(graphql.errors)).toContain('"url"');
  });

  it('judges every IPv6 form that embeds an IPv4 address by that address, over REST and GraphQL', async () => {
    for (const target of TARGETS) {
      for (const form of embeddedForms(target)) {
        const url = `http://[${form}]:8080/hook`;
        const rest = await t.request({ method: 'POST', url: '/api/partner/webhooks', token: partnerToken, body: { url, event_types: ['pipeline.sync.completed'] } });
        expect(rest.statusCode, url).toBe(422);
        expect(rest.json(), url).toMatchObject({ code: 'VALIDATION_ERROR' });
        expect(JSON.stringify(rest.json()), url).toMatch(/"field":"url"/);
        const graphql = await t.graphql('mutation($u: String!) { createWebhook(input: { url: $u, eventTypes: ["*"] }) { secret } }', { u: url }, partnerToken);
        expect(graphql.errors?.[0]?.extensions?.['code'], url).toBe('VALIDATION_ERROR');
        expect(JSON.stringify(graphql.errors), url).toContain('"url"');
      }
    }
    // The forms the outside probe got through, and the reason now given.
    const compat = await t.request({ method: 'POST', url: '/api/partner/webhooks', token: partnerToken, body: { url: 'http://[::127.0.0.1]:9/x', event_types: ['*'] } });
    expect(JSON.stringify(compat.json())).toContain('IPv4-compatible form of 127.0.0.1, loopback');
    const sixToFour = await t.request({ method: 'POST', url: '/api/partner/webhooks', token: partnerToken, body: { url: 'http://[2002:7f00:1::1]/x', event_types: ['*'] } });
    expect(JSON.stringify(sixToFour.json())).toContain('6to4 form of 127.0.0.1, loopback');
  });

  it('accepts the translating forms of a public IPv4 address (NAT64, 6to4, IPv4-mapped) and public IPv6', async () => {
    for (const url of ['http://[64:ff9b::808:808]/hook', 'http://[2002:808:808::1]/hook', 'http://[::ffff:8.8.8.8]/hook', 'http://[2606:4700:4700::1111]/hook']) {
      const rest = await t.request({ method: 'POST', url: '/api/partner/webhooks', token: partnerToken, body: { url, event_types: ['pipeline.sync.completed'] } });
      expect(rest.statusCode, `${url} ${rest.body}`).toBe(201);
      const graphql = await t.graphql<{ createWebhook: { webhook: { webhookId: string } } }>('mutation($u: String!) { createWebhook(input: { url: $u, eventTypes: ["*"] }) { webhook { webhookId } } }', { u: url }, partnerToken);
      expect(graphql.errors, url).toBeUndefined();
      for (const id of [(rest.json() as { webhook_id: string }).webhook_id, graphql.data!.createWebhook.webhook.webhookId]) {
        expect((await t.request({ method: 'DELETE', url: `/api/partner/webhooks?webhook_id=${id}`, token: partnerToken })).statusCode).toBe(200);
      }
    }
  });
});

interface DeliveryLog {
  status: string;
  lastError: string | null;
  log: { statusCode: number | null; error: string | null }[];
}

/**
 * At delivery time the rule applies to the address the socket connects to: endpoints stored while
 * private receivers were allowed (or whose name resolves elsewhere now) are refused when the worker
 * connects, and redirects are never followed.
 */
describe('webhooks: SSRF protection at delivery', () => {
  const operator = `op_${randomBytes(24).toString('base64url')}`;
  let storage: TestStorage;
  let receiver: WebhookReceiver;
  let open: TestSystem | undefined;
  let closed: TestSystem | undefined;
  let partnerToken: string;
  const hooks: Record<string, string> = {};
  const FAST = { SVC_BOOTSTRAP_TOKEN: operator, SVC_WEBHOOK_POLL_MS: '50', SVC_WEBHOOK_TIMEOUT_MS: '5000', SVC_RATE_LIMITS: 'off' };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    storage = await freshStorage();
    open = await bootSystem({ ...FAST, SVC_WEBHOOK_ALLOW_PRIVATE: 'true' }, { storage });
    partnerToken = await apiToken(open, await registerPartner(open, 'Rebound Labs'), ['cms.webhooks.manage']);
    const port = new URL(receiver.baseUrl).port;
    for (const name of ['redirect-target', 'by-name', 'mapped', 'compatible', 'literal']) receiver.path(name, { trusting: true });
    receiver.path('redirecting', { trusting: true, fallback: { status: 302, headers: { location: `${receiver.baseUrl}/redirect-target` } } });
    const urls: Record<string, string> = {
      byName: `http://localhost:${port}/by-name`,
      mapped: `http://[::ffff:127.0.0.1]:${port}/mapped`,
      compatible: `http://[::127.0.0.1]:${port}/compatible`,
      literal: `${receiver.baseUrl}/literal`,
      redirecting: `${receiver.baseUrl}/redirecting`,
    };
    for (const [name, url] of Object.entries(urls)) {
      const res = await open.request({ method: 'POST', url: '/api/partner/webhooks', token: partnerToken, body: { url, event_types: ['pipeline.sync.completed'] } });
      expect(res.statusCode, res.body).toBe(201);
      hooks[name] = (res.json() as { webhook_id: string }).webhook_id;
    }
  });
  afterAll(async () => {
    await open?.close();
    await closed?.close();
    await receiver?.close();
    await storage?.dispose();
  });

  async function pingAndWait(t: TestSystem, webhookId: string): Promise<DeliveryLog> {
    const ping = await t.graphql('mutation($w: ID!) { sendWebhookTestPing(webhookId: $w) { deliveryId } }', { w: webhookId }, partnerToken);
    expect(ping.errors).toBeUndefined();
    return eventually(async () => {
      const res = await t.graphql<{ webhook: { deliveries: { edges: { node: DeliveryLog }[] } } }>(
        'query($id: ID!) { webhook(webhookId: $id) { deliveries(first: 5) { edges { node { status lastError log { statusCode error } } } } } }',
        { id: webhookId },
        partnerToken,
      );
      const delivery = res.data!.webhook.deliveries.edges[0]?.node;
      expect(delivery?.status).toMatch(/^(SUCCEEDED|FAILED)$/);
      return delivery!;
    }, 30_000);
  }

  it('does not follow a redirect: the 3xx is a failed attempt and its target hears nothing', async () => {
    const delivery = await pingAndWait(open!, hooks['redirecting']!);
    expect(delivery.status).toBe('FAILED');
    expect(delivery.log[0]).toMatchObject({ statusCode: 302, error: expect.stringMatching(/^redirect to http:\/\/127\.0\.0\.1:\d+\/redirect-target not followed$/) });
    expect(receiver.of('redirecting')).toHaveLength(1);
    expect(receiver.of('redirect-target')).toHaveLength(0);
  });

  it('refuses, when connecting, a stored endpoint whose name or literal is loopback once private receivers are no longer allowed', async () => {
    await open!.close();
    open = undefined;
    closed = await bootSystem(FAST, { storage });
    for (const name of ['byName', 'mapped', 'compatible', 'literal']) {
      const delivery = await pingAndWait(closed, hooks[name]!);
      expect(delivery.status, name).toBe('FAILED');
      expect(delivery.log[0]?.statusCode, name).toBeNull();
      expect(delivery.log[0]?.error, name).toMatch(/^address \S+ is private, loopback, link-local or reserved \(.*loopback\)$/);
    }
    expect(receiver.receipts.filter((r) => r.path !== '/redirecting')).toHaveLength(0);
  });
});
