import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair } from 'jose';
import { Webhook } from 'standardwebhooks';
import { ApiError, createPartnerClient, DeliveryDeduplicator, verifyWebhook, WebhookVerificationFailed, type DeprecationWarning, type RetryNotice, type WebhookEvent } from '@health-partner/sdk';
import type { Bundle, Patient } from '@medplum/fhirtypes';
import { generateTypes } from '../sdk/typescript/scripts/generate-types.js';
import { quickstart } from '../sdk/typescript/examples/quickstart.js';
import { fastifyReceiver } from '../sdk/typescript/examples/fastify-receiver.js';
import { expressReceiver } from '../sdk/typescript/examples/express-receiver.js';
import { eventually } from './support/patience.js';
import { freePort } from './support/processes.js';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken } from './support/fhir.js';

/**
 * The TypeScript SDK (sdk/typescript, @health-partner/sdk) against the embedded service over real
 * HTTP: its generated types against the served OpenAPI document, token and OAuth authentication, FHIR
 * access, retries after 429, deprecation warnings, webhook verification and its examples.
 */

const SCOPES = ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push', 'system/*.read', 'identity.match', 'cms.tokens.manage', 'cms.webhooks.manage', 'tefca.xcpd.search'];

describe('the TypeScript SDK against the embedded service', () => {
  let t: TestSystem;
  let baseUrl: string;
  let token: string;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    t = await bootSystem({ SVC_PUBLIC_URL: baseUrl, SVC_WEBHOOK_ALLOW_PRIVATE: 'true' });
    await t.system.app.listen({ host: '127.0.0.1', port });
    token = await apiToken(t, null, SCOPES);
  });
  afterAll(() => t?.close());

  it('has types generated from the served OpenAPI document (npm run generate -w @health-partner/sdk regenerates them)', async () => {
    const served = await t.request({ url: '/api/openapi/all.json', token: null });
    expect(served.statusCode).toBe(200);
    const committed = readFileSync(new URL('../sdk/typescript/src/generated/openapi.ts', import.meta.url), 'utf8');
    expect(await generateTypes(served.json())).toBe(committed);
  });

  it('runs the quick start with an API token: conditional create, paged search, a 404 as ApiError', async () => {
    const first = await quickstart(baseUrl, token);
    const again = await quickstart(baseUrl, token);
    expect(again).toEqual({ patientId: first.patientId, found: 1 });
  });

  it('authenticates with OAuth client_credentials, client_secret and private_key_jwt, and caches the token until shortly before it expires', async () => {
    const admin = createPartnerClient({ baseUrl, credentials: { token } });
    const secretClient = await admin.rest.POST('/cms/oauth/register', { body: { client_name: 'SDK secret client', scope: 'cms.fhir.r4.read' } });
    expect(secretClient.response.status).toBe(201);
    const { client_id: clientId, client_secret: clientSecret } = secretClient.data as { client_id: string; client_secret: string };

    let tokenRequests = 0;
    const counting: typeof fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/oauth/token')) tokenRequests++;
      return fetch(input, init);
    };
    const oauth = createPartnerClient({ baseUrl, credentials: { clientId, clientSecret }, fetch: counting });
    for (let i = 0; i < 3; i++) expect((await oauth.fhir.search('Patient', { _count: 1 })).resourceType).toBe('Bundle');
    expect(tokenRequests).toBe(1);

    const { publicKey, privateKey } = await generateKeyPair('ES384');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'sdk-key-1', alg: 'ES384', use: 'sig' };
    const keyClient = await admin.rest.POST('/cms/oauth/register', { body: { client_name: 'SDK key client', scope: 'cms.fhir.r4.read identity.match', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } } as never });
    expect(keyClient.response.status).toBe(201);
    const backend = createPartnerClient({ baseUrl, credentials: { clientId: (keyClient.data as { client_id: string }).client_id, privateKey, keyId: 'sdk-key-1' } });
    expect((await backend.fhir.search('Patient', { _count: 1 })).resourceType).toBe('Bundle');
    // Identity matching takes a service credential (an OAuth access token), not an API token.
    const match = await backend.identity.match({ name: 'Ada Quickstart', dob: '1984-07-01' });
    expect(match.match_type).toBeDefined();
    const byToken = await createPartnerClient({ baseUrl, credentials: { token } }).identity.match({ name: 'Ada Quickstart' }).catch((err: unknown) => err);
    expect(byToken).toMatchObject({ status: 403 });

    const wrong = createPartnerClient({ baseUrl, credentials: { clientId, clientSecret: 'svc_cs_wrong' } });
    const refused = await wrong.fhir.search('Patient').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 401, code: 'invalid_client' });
  });

  it('runs a FHIR transaction, a paged search and a $export streamed as NDJSON, with typed resources', async () => {
    const client = createPartnerClient({ baseUrl, credentials: { token } });
    const bundle: Bundle = {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: Array.from({ length: 5 }, (_, i) => ({ fullUrl: `urn:uuid:00000000-0000-4000-8000-00000000000${i}`, resource: { resourceType: 'Patient', name: [{ family: 'Sdkpaged', given: [`P${i}`] }] } as Patient, request: { method: 'POST', url: 'Patient' } })),
    };
    const response = await client.fhir.transaction(bundle);
    expect(response.type).toBe('transaction-response');
    expect(response.entry?.every((e) => e.response?.status?.startsWith('201'))).toBe(true);

    const firstPage = await client.fhir.search('Patient', { family: 'Sdkpaged', _count: 2 });
    expect(firstPage.entry).toHaveLength(2);
    const all: Patient[] = [];
    for await (const patient of client.fhir.searchAll('Patient', { family: 'Sdkpaged', _count: 2 })) all.push(patient);
    expect(all.map((p) => p.name?.[0]?.given?.[0]).sort()).toEqual(['P0', 'P1', 'P2', 'P3', 'P4']);

    const manifest = await client.fhir.bulkExport({ types: ['Patient'], minPollMs: 100, maxPollMs: 1000 });
    expect(manifest.output.length).toBeGreaterThan(0);
    const exported: Patient[] = [];
    for (const file of manifest.output) for await (const resource of client.fhir.streamNdjson<Patient>(file.url)) exported.push(resource);
    expect(exported.filter((p) => p.name?.[0]?.family === 'Sdkpaged')).toHaveLength(5);

    const invalid = await client.fhir.create({ resourceType: 'Patient', gender: 'sometimes' } as unknown as Patient).catch((err: unknown) => err);
    expect(invalid).toBeInstanceOf(ApiError);
    expect((invalid as ApiError).status).toBeGreaterThanOrEqual(400);
  });

  it('registers a webhook whose Fastify receiver (the example) verifies the test.ping with the SDK, refuses the forged probe, and manages it over REST', async () => {
    const client = createPartnerClient({ baseUrl, credentials: { token } });
    const received: WebhookEvent[] = [];
    let secret = '';
    const receiver = fastifyReceiver(() => secret, (event) => received.push(event));
    const receiverUrl = await receiver.listen({ host: '127.0.0.1', port: 0 });
    try {
      const types = await client.webhooks.eventTypes();
      expect(JSON.stringify(types)).toContain('pipeline.sync.completed');
      const registered = await client.webhooks.register({ url: `${receiverUrl}/webhooks`, event_types: ['pipeline.sync.completed'] });
      secret = registered.secret;
      await client.webhooks.testPing(registered.webhook_id);
      // Verified: the receiver answered the signed ping 2xx and refused the platform's forged probe.
      const delivery = await eventually(async () => {
        const page = await client.webhooks.deliveries(registered.webhook_id, { limit: 10 });
        const ping = page.deliveries.find((d) => d.event_type === 'test.ping');
        expect(ping).toMatchObject({ status: 'succeeded', last_error: null });
        return ping!;
      });
      expect(received.map((e) => e.type)).toEqual(['test.ping']);

      // A redelivery carries the same webhook-id: the receiver acknowledges it without handling it twice.
      await client.webhooks.redeliver(registered.webhook_id, delivery.delivery_id);
      await eventually(async () => expect((await client.webhooks.delivery(registered.webhook_id, delivery.delivery_id)).attempts).toBeGreaterThan(delivery.attempts));
      expect(received).toHaveLength(1);

      const rotated = await client.webhooks.rotateSecret(registered.webhook_id, { overlap_seconds: 60 });
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(secret);
      const missing = await client.webhooks.deliveries('whk_00000000000000000000000000').catch((err: unknown) => err);
      expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      await client.webhooks.remove(registered.webhook_id);
    } finally {
      await receiver.close();
    }
  });

  it('applies as a partner without a credential (start, save a step, resume, refuse an incomplete submission) and reads the TEFCA directory and the entity types', async () => {
    const applicant = createPartnerClient({ baseUrl });
    const draft = await applicant.applicant.start();
    expect(draft.resume_token).toMatch(/^svc_app_/);
    const saved = await applicant.applicant.saveStep(draft.application_id, draft.resume_token, 'integration', { use_case: 'care_coordination', capabilities: ['fhir_write'], data_direction: 'bidirectional' });
    expect(saved).toMatchObject({ step: 'integration', valid: true, field_errors: [] });
    expect((await applicant.applicant.get(draft.application_id, draft.resume_token)).progress.next_step).toBe('organization');
    const incomplete = await applicant.applicant.submit(draft.application_id, draft.resume_token).catch((err: unknown) => err);
    expect(incomplete).toBeInstanceOf(ApiError);
    expect(incomplete).toMatchObject({ status: 422, code: 'VALIDATION_ERROR' });

    const client = createPartnerClient({ baseUrl, credentials: { token } });
    expect((await client.tefca.communities()).communities[0]).toMatchObject({ self: true });
    expect((await client.identity.entityTypes()).entity_types).toHaveLength(22);
  });

  it('sends a request refused with 429 again after its Retry-After, and tells the retry listener', async () => {
    const client = createPartnerClient({ baseUrl, credentials: { token } });
    const retries: RetryNotice[] = [];
    client.on('retry', (notice) => retries.push(notice));
    // The FHIR burst limit is 30 a second: 45 reads at once are partly refused, and all answered.
    const reads = await Promise.all(Array.from({ length: 45 }, () => client.fhir.search('Patient', { _count: 1 })));
    expect(reads.every((b) => b.resourceType === 'Bundle')).toBe(true);
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toMatchObject({ method: 'GET', reason: 429, attempt: 1 });
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);

    const noRetry = createPartnerClient({ baseUrl, credentials: { token }, retry: false });
    const answers = await Promise.allSettled(Array.from({ length: 45 }, () => noRetry.fhir.search('Patient', { _count: 1 })));
    const limited = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected')?.reason as ApiError;
    expect(limited).toBeInstanceOf(ApiError);
    expect(limited).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(limited.details.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('raises a deprecation warning, once per route, when a deprecated route is called (here past its sunset: 410 Gone)', async () => {
    const warnings: DeprecationWarning[] = [];
    const client = createPartnerClient({ baseUrl, credentials: { token }, onDeprecation: (w) => warnings.push(w) });
    const body = { patient: { given_name: 'Ada', family_name: 'Sdk', birth_date: '1984-07-01', gender: 'female' } };
    for (let i = 0; i < 2; i++) await client.rest.POST('/tefca/v1/patient-discovery', { body: body as never });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ method: 'POST', url: `${baseUrl}/tefca/v1/patient-discovery`, deprecation: 'true', status: 410 });
    expect(warnings[0]!.sunset?.toISOString()).toBe('2026-09-12T00:00:00.000Z');
    expect(warnings[0]!.links.map((l) => l.url)).toEqual([`${baseUrl}/tefca/xcpd/search`, `${baseUrl}/tefca/xcpd/discover`]);
  });
});

describe('webhook verification (Standard Webhooks)', () => {
  const secret = `whsec_${Buffer.from('a-test-signing-key-of-32-bytes!!').toString('base64')}`;
  const body = JSON.stringify({ type: 'test.ping', timestamp: '2026-12-02T00:00:00Z', event_id: 'evt_1', partner_gpid: 'CMS-00000001', data: {} });
  const signed = (at: Date, key = secret, id = 'dlv_1') => ({ 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(key).sign(id, at, body) });

  it('accepts a delivery signed with the secret (or either secret during a rotation), and refuses forgeries, stale timestamps and missing headers', () => {
    const now = new Date();
    expect(verifyWebhook(body, signed(now), secret).event.type).toBe('test.ping');
    const other = `whsec_${Buffer.from('another-key-of-thirty-two-bytes!').toString('base64')}`;
    expect(verifyWebhook(body, signed(now, other), [secret, other]).deliveryId).toBe('dlv_1');
    expect(() => verifyWebhook(body, signed(now, other), secret)).toThrow(WebhookVerificationFailed);
    expect(() => verifyWebhook(`${body} `, signed(now), secret)).toThrow(/no webhook-signature matched/);
    expect(() => verifyWebhook(body, signed(new Date(now.getTime() - 600_000)), secret)).toThrow(/tolerance/);
    expect(verifyWebhook(body, signed(new Date(now.getTime() - 600_000)), secret, { toleranceSeconds: 900 }).deliveryId).toBe('dlv_1');
    const { 'webhook-signature': _dropped, ...unsigned } = signed(now);
    expect(() => verifyWebhook(body, unsigned, secret)).toThrow(/webhook-signature header is missing/);
  });

  it('the Express receiver example answers a signed delivery 204 once, a repeat 204 without handling it, and a forgery 400', async () => {
    const handled: string[] = [];
    const server = expressReceiver(secret, (event) => handled.push(event.event_id)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/webhooks`;
    try {
      const post = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      expect((await post(signed(new Date()))).status).toBe(204);
      expect((await post(signed(new Date()))).status).toBe(204);
      const forged = `whsec_${Buffer.from('a-forger-key-of-thirty-two-bytes').toString('base64')}`;
      expect((await post(signed(new Date(), forged, 'dlv_2'))).status).toBe(400);
      expect(handled).toEqual(['evt_1']);
    } finally {
      server.close();
    }
  });

  it('deduplicates deliveries by webhook-id, within its bounds', () => {
    let clock = 0;
    const seen = new DeliveryDeduplicator({ maxEntries: 2, ttlMs: 1000, now: () => clock });
    expect(seen.firstDelivery('a')).toBe(true);
    expect(seen.firstDelivery('a')).toBe(false);
    expect(seen.firstDelivery('b')).toBe(true);
    expect(seen.firstDelivery('c')).toBe(true);
    expect(seen.firstDelivery('a')).toBe(true); // forgotten: the oldest beyond maxEntries
    clock = 5000;
    expect(seen.firstDelivery('c')).toBe(true); // forgotten: older than ttlMs
  });
});
