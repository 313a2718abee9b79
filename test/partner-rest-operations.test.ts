import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, registerPartner } from './support/fhir.js';
import { eventually } from './support/patience.js';
import { onboardPartner } from './support/partner-onboarding.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/** Webhook, sync job, event log and application operations over REST, as their GraphQL twins allow. */

const FAST = { SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_RETRY_BASE_MS: '40', SVC_WEBHOOK_RETRY_MAX_DELAY_MS: '200', SVC_WEBHOOK_MAX_ATTEMPTS: '2', SVC_WEBHOOK_POLL_MS: '50' };
const MISSING_WEBHOOK = 'whk_00000000000000000000000000';
const MISSING_DELIVERY = 'dlv_00000000000000000000000000';
const MISSING_JOB = 'job_00000000000000000000000000';

/** A problem document without the per-request fields, to compare two answers. */
function problem(body: string): Record<string, unknown> {
  const { request_id: _r, instance: _i, ...rest } = JSON.parse(body) as Record<string, unknown>;
  return rest;
}

describe('partner operations over REST', () => {
  let t: TestSystem;
  let receiver: WebhookReceiver;
  let partnerA: string;
  let partnerB: string;
  let hooksA: string;
  let hooksB: string;
  let webhookA: string;
  let webhookB: string;
  let readerA: string;
  let pusherA: string;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await bootSystem(FAST);
    partnerA = await registerPartner(t, 'Rest Ops A');
    partnerB = await registerPartner(t, 'Rest Ops B');
    hooksA = await apiToken(t, partnerA, ['cms.webhooks.manage']);
    hooksB = await apiToken(t, partnerB, ['cms.webhooks.manage', 'cms.pipeline.read']);
    readerA = await apiToken(t, partnerA, ['cms.partner.read']);
    pusherA = await apiToken(t, partnerA, ['cms.fhir.bundle.push', 'cms.pipeline.read']);
    const register = async (token: string, path: string) => {
      const res = await t.request({ method: 'POST', url: '/api/partner/webhooks', token, body: { url: receiver.path(path), event_types: ['pipeline.*'] } });
      expect(res.statusCode, res.body).toBe(201);
      return (res.json() as { webhook_id: string }).webhook_id;
    };
    webhookA = await register(hooksA, 'rest-a');
    webhookB = await register(hooksB, 'rest-b');
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  // Each test starts with the partners' burst allowance (30 per second) refilled.
  beforeEach(() => new Promise((resolve) => setTimeout(resolve, 1100)));

  describe('webhooks', () => {
    it('reads one webhook and lists the event types', async () => {
      const one = await t.request({ url: `/api/partner/webhooks/${webhookA}`, token: hooksA });
      expect(one.statusCode, one.body).toBe(200);
      expect(one.json()).toMatchObject({ webhook_id: webhookA, partner_gpid: partnerA, enabled: true, event_types: ['pipeline.*'] });
      const types = await t.request({ url: '/api/partner/webhook-event-types', token: hooksA });
      expect(types.statusCode, types.body).toBe(200);
      expect((types.json() as { event_types: { type: string }[] }).event_types.map((e) => e.type)).toContain('pipeline.sync.completed');
    });

    it('sends a test.ping, shows it in the delivery log, and redelivers it', async () => {
      const ping = await t.request({ method: 'POST', url: `/api/partner/webhooks/${webhookA}/test`, token: hooksA });
      expect(ping.statusCode, ping.body).toBe(202);
      const delivery = ping.json() as { delivery_id: string; event_type: string; webhook_id: string };
      expect(delivery).toMatchObject({ event_type: 'test.ping', webhook_id: webhookA });
      await eventually(async () => expect(receiver.of('rest-a').length).toBeGreaterThan(0));

      const done = await eventually(async () => {
        const res = await t.request({ url: `/api/partner/webhooks/${webhookA}/deliveries/${delivery.delivery_id}`, token: hooksA });
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json() as { status: string; log: unknown[]; body: string };
        expect(['succeeded', 'failed']).toContain(body.status);
        return body;
      });
      expect(done.log.length).toBeGreaterThan(0);
      expect(JSON.parse(done.body)).toBeTypeOf('object');

      const log = await t.request({ url: `/api/partner/webhooks/${webhookA}/deliveries`, token: hooksA });
      expect(log.statusCode, log.body).toBe(200);
      expect((log.json() as { deliveries: { delivery_id: string }[] }).deliveries.map((d) => d.delivery_id)).toContain(delivery.delivery_id);

      const again = await t.request({ method: 'POST', url: `/api/partner/webhooks/${webhookA}/deliveries/${delivery.delivery_id}/redeliver`, token: hooksA });
      expect(again.statusCode, again.body).toBe(202);
      expect(again.json()).toMatchObject({ delivery_id: delivery.delivery_id });
    });

    it('pages the delivery log with limit and cursor, newest first', async () => {
      for (let i = 0; i < 3; i++) expect((await t.request({ method: 'POST', url: `/api/partner/webhooks/${webhookA}/test`, token: hooksA })).statusCode).toBe(202);
      const first = await t.request({ url: `/api/partner/webhooks/${webhookA}/deliveries?limit=2`, token: hooksA });
      expect(first.statusCode, first.body).toBe(200);
      const page1 = first.json() as { deliveries: { delivery_id: string }[]; next_cursor: string | null };
      expect(page1.deliveries).toHaveLength(2);
      expect(page1.next_cursor).toBeTruthy();
      const second = await t.request({ url: `/api/partner/webhooks/${webhookA}/deliveries?limit=2&cursor=${encodeURIComponent(page1.next_cursor!)}`, token: hooksA });
      expect(second.statusCode, second.body).toBe(200);
      const page2 = second.json() as { deliveries: { delivery_id: string }[] };
      expect(page2.deliveries.length).toBeGreaterThan(0);
      const ids = [...page1.deliveries, ...page2.deliveries].map((d) => d.delivery_id);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort().reverse()).toEqual(ids);

      const bad = await t.request({ url: `/api/partner/webhooks/${webhookA}/deliveries?limit=0&status=lost`, token: hooksA });
      expect(bad.statusCode).toBe(422);
      expect(bad.headers['content-type']).toContain('application/problem+json');
      expect((bad.json() as { errors: { field: string }[] }).errors.map((e) => e.field).sort()).toEqual(['limit', 'status']);
      const badCursor = await t.request({ url: `/api/partner/webhooks/${webhookA}/deliveries?cursor=nonsense`, token: hooksA });
      expect(badCursor.statusCode).toBe(400);
      expect(badCursor.body).toContain('cursor');
    });

    it('rotates the secret, disables the endpoint and enables it again', async () => {
      const rotated = await t.request({ method: 'POST', url: `/api/partner/webhooks/${webhookA}/rotate-secret`, token: hooksA, body: { overlap_seconds: 60 } });
      expect(rotated.statusCode, rotated.body).toBe(200);
      const body = rotated.json() as { secret: string; previous_secret_expires_at: string | null };
      expect(body.secret).toMatch(/^whsec_/);
      expect(body.previous_secret_expires_at).toBeTruthy();
      const invalid = await t.request({ method: 'POST', url: `/api/partner/webhooks/${webhookA}/rotate-secret`, token: hooksA, body: { overlap_seconds: 'soon' } });
      expect(invalid.statusCode).toBe(422);
      expect((invalid.json() as { errors: { field: string }[] }).errors[0]!.field).toBe('overlap_seconds');
      const disabled = await t.request({ method: 'POST', url: `/api/partner/webhooks/${webhookA}/disable`, token: hooksA });
      expect(disabled.statusCode, disabled.body).toBe(200);
      expect(disabled.json()).toMatchObject({ webhook_id: webhookA, enabled: false, disabled_reason: 'partner' });
      expect((await t.request({ url: `/api/partner/webhooks/${webhookA}`, token: hooksA })).json()).toMatchObject({ enabled: false, disabled_reason: 'partner' });
      const again = await t.request({ method: 'POST', url: `/api/partner/webhooks/${webhookA}/disable`, token: hooksA });
      expect(again.json()).toMatchObject({ enabled: false, disabled_reason: 'partner' });
      const enabled = await t.request({ method: 'POST', url: `/api/partner/webhooks/${webhookA}/enable`, token: hooksA });
      expect(enabled.statusCode, enabled.body).toBe(200);
      expect(enabled.json()).toMatchObject({ webhook_id: webhookA, enabled: true, disabled_reason: null });
    });

    it("answers another partner's webhook and delivery exactly like missing ones", async () => {
      const ping = await t.request({ method: 'POST', url: `/api/partner/webhooks/${webhookB}/test`, token: hooksB });
      const deliveryB = (ping.json() as { delivery_id: string }).delivery_id;
      const pairs: [string, string, string][] = [
        ['GET', `/api/partner/webhooks/${webhookB}`, `/api/partner/webhooks/${MISSING_WEBHOOK}`],
        ['POST', `/api/partner/webhooks/${webhookB}/test`, `/api/partner/webhooks/${MISSING_WEBHOOK}/test`],
        ['GET', `/api/partner/webhooks/${webhookB}/deliveries`, `/api/partner/webhooks/${MISSING_WEBHOOK}/deliveries`],
        ['POST', `/api/partner/webhooks/${webhookB}/rotate-secret`, `/api/partner/webhooks/${MISSING_WEBHOOK}/rotate-secret`],
        ['POST', `/api/partner/webhooks/${webhookB}/enable`, `/api/partner/webhooks/${MISSING_WEBHOOK}/enable`],
        ['POST', `/api/partner/webhooks/${webhookB}/disable`, `/api/partner/webhooks/${MISSING_WEBHOOK}/disable`],
      ];
      for (const [method, theirs, missing] of pairs) {
        const a = await t.request({ method, url: theirs, token: hooksA });
        const b = await t.request({ method, url: missing, token: hooksA });
        expect(a.statusCode, `${method} ${theirs}`).toBe(404);
        expect(problem(a.body.replaceAll(webhookB, MISSING_WEBHOOK)), `${method} ${theirs}: ${a.body} / ${b.body}`).toEqual(problem(b.body));
      }
      // A delivery of B, asked for under A's own webhook or B's: 404 like a missing one.
      for (const url of [`/api/partner/webhooks/${webhookA}/deliveries/${deliveryB}`, `/api/partner/webhooks/${webhookB}/deliveries/${deliveryB}`]) {
        const theirs = await t.request({ url, token: hooksA });
        const missing = await t.request({ url: url.replace(deliveryB, MISSING_DELIVERY), token: hooksA });
        expect(theirs.statusCode).toBe(404);
        expect(problem(theirs.body.replaceAll(deliveryB, MISSING_DELIVERY))).toEqual(problem(missing.body));
      }
      const redeliver = await t.request({ method: 'POST', url: `/api/partner/webhooks/${webhookA}/deliveries/${deliveryB}/redeliver`, token: hooksA });
      expect(redeliver.statusCode).toBe(404);
    });

    it('refuses a credential without the scope, naming the scopes, and malformed ids by name', async () => {
      const reader = readerA;
      for (const [method, url] of [
        ['POST', `/api/partner/webhooks/${webhookA}/test`],
        ['GET', `/api/partner/webhooks/${webhookA}/deliveries`],
        ['POST', `/api/partner/webhooks/${webhookA}/rotate-secret`],
        ['POST', `/api/partner/webhooks/${webhookA}/enable`],
        ['POST', `/api/partner/webhooks/${webhookA}/disable`],
      ] as const) {
        const res = await t.request({ method, url, token: reader });
        expect(res.statusCode, url).toBe(403);
        expect(res.body).toContain('cms.webhooks.manage');
      }
      const malformed = await t.request({ url: '/api/partner/webhooks/whk_nope/deliveries', token: hooksA });
      expect(malformed.statusCode).toBe(422);
      expect((malformed.json() as { errors: { field: string }[] }).errors[0]!.field).toBe('webhook_id');
    });
  });

  describe('sync jobs', () => {
    it('creates, reads, lists, completes and fails external jobs', async () => {
      const pusher = pusherA;
      const created = await t.request({ method: 'POST', url: '/cms/pipeline/sync-jobs', token: pusher, body: { resource_types: ['Patient', 'Observation'] } });
      expect(created.statusCode, created.body).toBe(201);
      const job = created.json() as { job_id: string; status: string; partner_gpid: string; kind: string };
      expect(job).toMatchObject({ partner_gpid: partnerA, status: 'queued', kind: 'external' });

      const read = await t.request({ url: `/cms/pipeline/sync-jobs/${job.job_id}`, token: pusher });
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json()).toMatchObject({ job_id: job.job_id, resource_types: ['Patient', 'Observation'] });
      const list = await t.request({ url: '/cms/pipeline/sync-jobs', token: pusher });
      expect(list.statusCode, list.body).toBe(200);
      expect((list.json() as { sync_jobs: { job_id: string }[] }).sync_jobs.map((j) => j.job_id)).toContain(job.job_id);

      // Finishing a job by hand is the operator's (cms.admin), as on GraphQL.
      const refused = await t.request({ method: 'POST', url: `/cms/pipeline/sync-jobs/${job.job_id}/complete`, token: pusher, body: { records_processed: 3 } });
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('cms.admin');
      const completed = await t.request({ method: 'POST', url: `/cms/pipeline/sync-jobs/${job.job_id}/complete`, body: { records_processed: 3 } });
      expect(completed.statusCode, completed.body).toBe(200);
      expect(completed.json()).toMatchObject({ status: 'completed', records_processed: 3 });

      const other = (await t.request({ method: 'POST', url: '/cms/pipeline/sync-jobs', token: pusher, body: { resource_types: ['Patient'] } })).json() as { job_id: string };
      const failed = await t.request({ method: 'POST', url: `/cms/pipeline/sync-jobs/${other.job_id}/fail`, body: { error_code: 'VALIDATION_ERROR', message: 'bad rows' } });
      expect(failed.statusCode, failed.body).toBe(200);
      expect(failed.json()).toMatchObject({ status: 'failed', error_code: 'VALIDATION_ERROR', message: 'bad rows' });

      // Another partner's job is a missing one.
      const readerB = hooksB;
      const theirs = await t.request({ url: `/cms/pipeline/sync-jobs/${job.job_id}`, token: readerB });
      const missing = await t.request({ url: `/cms/pipeline/sync-jobs/${MISSING_JOB}`, token: readerB });
      expect(theirs.statusCode).toBe(404);
      expect(problem(theirs.body.replaceAll(job.job_id, MISSING_JOB))).toEqual(problem(missing.body));
    });

    it('validates bodies and scopes by name', async () => {
      const pusher = pusherA;
      const empty = await t.request({ method: 'POST', url: '/cms/pipeline/sync-jobs', token: pusher, body: { resource_types: 'Patient' } });
      expect(empty.statusCode).toBe(422);
      expect((empty.json() as { errors: { field: string }[] }).errors[0]!.field).toBe('resource_types');
      const noRecords = await t.request({ method: 'POST', url: `/cms/pipeline/sync-jobs/${MISSING_JOB}/complete`, body: {} });
      expect(noRecords.statusCode).toBe(422);
      expect(noRecords.body).toContain('records_processed');
      const refused = await t.request({ method: 'POST', url: '/cms/pipeline/sync-jobs', token: readerA, body: { resource_types: ['Patient'] } });
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('cms.fhir.bundle.push');
    });
  });

  describe('event log', () => {
    it('lists, reads and replays the partner’s own events', async () => {
      const token = pusherA;
      const jobs: string[] = [];
      for (let i = 0; i < 2; i++) {
        const created = (await t.request({ method: 'POST', url: '/cms/pipeline/sync-jobs', token, body: { resource_types: ['Patient'] } })).json() as { job_id: string };
        expect((await t.request({ method: 'POST', url: `/cms/pipeline/sync-jobs/${created.job_id}/complete`, body: { records_processed: 1 } })).statusCode).toBe(200);
        jobs.push(created.job_id);
      }
      const events = await eventually(async () => {
        const res = await t.request({ url: '/api/partner/events?types=pipeline.sync.completed&limit=50', token });
        expect(res.statusCode, res.body).toBe(200);
        const list = (res.json() as { events: { id: string; data: { job_id: string } }[] }).events;
        expect(list.filter((e) => jobs.includes(e.data.job_id))).toHaveLength(2);
        return list.filter((e) => jobs.includes(e.data.job_id));
      });
      const [newest, older] = events as unknown as [{ id: string }, { id: string }];
      const one = await t.request({ url: `/api/partner/events/${newest.id}`, token });
      expect(one.statusCode, one.body).toBe(200);
      expect(one.json()).toMatchObject({ id: newest.id, type: 'pipeline.sync.completed', partner_gpid: partnerA });

      const replay = await t.request({ url: `/api/partner/events/replay?after=${older.id}&types=pipeline.sync.completed`, token });
      expect(replay.statusCode, replay.body).toBe(200);
      expect((replay.json() as { event_ids: string[] }).event_ids).toContain(newest.id);

      // Another partner's event: 404 like a missing one; a replay without after names the field.
      const tokenB = hooksB;
      const theirs = await t.request({ url: `/api/partner/events/${newest.id}`, token: tokenB });
      expect(theirs.statusCode).toBe(404);
      const theirReplay = await t.request({ url: `/api/partner/events/replay?after=${older.id}`, token: tokenB });
      expect(theirReplay.statusCode).toBe(404);
      const noAfter = await t.request({ url: '/api/partner/events/replay', token });
      expect(noAfter.statusCode).toBe(422);
      expect((noAfter.json() as { errors: { field: string }[] }).errors[0]!.field).toBe('after');
    });
  });

  describe('application', () => {
    it("answers the partner's own onboarding application, and 404 for a partner registered directly", async () => {
      const onboarded = await onboardPartner(t, `rest-ops-${Date.now()}`);
      const token = await apiToken(t, onboarded.partnerGpid, ['cms.partner.read']);
      const res = await t.request({ url: '/api/partner/application', token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ application_id: onboarded.applicationId, status: 'approved', partner_gpid: onboarded.partnerGpid, decision_reason: null });
      expect((res.json() as { organization: { legal_name: string } }).organization.legal_name).toContain('Riverbend Health');
      expect(res.body).not.toContain('portal_password');

      const direct = await t.request({ url: '/api/partner/application', token: readerA });
      expect(direct.statusCode).toBe(404);
      const refused = await t.request({ url: '/api/partner/application', token: hooksA });
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('cms.partner.read');
    });
  });

  it('lists the new routes in the route catalog and in OpenAPI', async () => {
    const catalog = await t.request({ url: '/api/partner/routes', token: hooksA });
    expect(catalog.statusCode).toBe(200);
    const openapi = await t.request({ url: '/api/openapi/all.yaml', token: null });
    expect(openapi.statusCode).toBe(200);
    const paths = (parse(openapi.body) as { paths: Record<string, Record<string, unknown>> }).paths;
    for (const [method, path] of [
      ['POST', '/api/partner/webhooks/{webhook_id}/test'],
      ['GET', '/api/partner/webhooks/{webhook_id}/deliveries'],
      ['GET', '/api/partner/webhooks/{webhook_id}/deliveries/{delivery_id}'],
      ['POST', '/api/partner/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver'],
      ['POST', '/api/partner/webhooks/{webhook_id}/rotate-secret'],
      ['POST', '/api/partner/webhooks/{webhook_id}/enable'],
      ['POST', '/api/partner/webhooks/{webhook_id}/disable'],
      ['GET', '/api/partner/webhook-event-types'],
      ['POST', '/cms/pipeline/sync-jobs'],
      ['GET', '/cms/pipeline/sync-jobs'],
      ['GET', '/cms/pipeline/sync-jobs/{job_id}'],
      ['POST', '/cms/pipeline/sync-jobs/{job_id}/complete'],
      ['POST', '/cms/pipeline/sync-jobs/{job_id}/fail'],
      ['GET', '/api/partner/events'],
      ['GET', '/api/partner/events/replay'],
      ['GET', '/api/partner/events/{event_id}'],
      ['GET', '/api/partner/application'],
    ] as const) {
      expect(catalog.body, `${method} ${path}`).toContain(path);
      expect(paths[path]?.[method.toLowerCase()], `${method} ${path}`).toBeDefined();
    }
  });
});
