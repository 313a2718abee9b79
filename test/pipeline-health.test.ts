import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, registerPartner } from './support/fhir.js';
import { eventually } from './support/identity.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/** Retries far apart, so a failed delivery stays in the backlog for the whole test. */
const SETTINGS = {
  SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
  SVC_WEBHOOK_RETRY_BASE_MS: '600000',
  SVC_WEBHOOK_POLL_MS: '50',
  SVC_WEBHOOK_TIMEOUT_MS: '3000',
};

interface HealthBody {
  status: string;
  reasons: string[];
  database: string;
  event_stream: { mode: string; status: string };
  consumers: { name: string; status: string; unacknowledged: number | null; oldest_age_seconds: number | null }[];
  webhooks: { status: string; pending: number; due: number; oldest_pending_age_seconds: number | null; window_minutes: number; attempts: number; failed_attempts: number; failure_rate: number | null };
  jobs_completed: number;
  jobs_stuck: number;
  success_rate: number | null;
}

describe('GET /cms/pipeline/health: database, event stream, consumer lag, webhook delivery', () => {
  let t: TestSystem;
  let receiver: WebhookReceiver;
  let partnerA: string;
  let readerA: string;
  let readerB: string;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await bootSystem(SETTINGS);
    partnerA = await registerPartner(t, 'Healthy Clinic');
    const partnerB = await registerPartner(t, 'Bystander Lab');
    readerA = await apiToken(t, partnerA, ['cms.pipeline.read', 'cms.webhooks.manage']);
    readerB = await apiToken(t, partnerB, ['cms.pipeline.read']);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const health = async (token?: string): Promise<HealthBody> => {
    const res = await t.request({ url: '/cms/pipeline/health', ...(token ? { token } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as HealthBody;
  };
  const completeJob = async (gpid: string) => {
    const job = await t.graphql<{ createSyncJob: { jobId: string } }>('mutation($p: ID!) { createSyncJob(partnerGpid: $p, resourceTypes: ["Patient"]) { jobId } }', { p: gpid });
    await t.graphql('mutation($j: ID!) { completeSyncJob(jobId: $j, recordsProcessed: 3) { status } }', { j: job.data!.createSyncJob.jobId });
  };

  it('is healthy when every dependency is: database up, event stream up, consumers caught up, no webhook backlog', async () => {
    await completeJob(partnerA);
    const body = await eventually(async () => {
      const h = await health();
      expect(h.jobs_completed).toBe(1);
      expect(h.consumers.every((c) => c.unacknowledged === 0)).toBe(true);
      return h;
    });
    expect(body).toMatchObject({ status: 'healthy', reasons: [], database: 'up', event_stream: { mode: t.config.redisUrl ? 'redis-streams' : 'embedded-outbox', status: 'up' }, jobs_stuck: 0, success_rate: 1 });
    expect(body.consumers.map((c) => [c.name, c.status, c.oldest_age_seconds])).toEqual([
      ['event-log', 'healthy', null],
      ['sync-jobs', 'healthy', null],
      ['webhooks', 'healthy', null],
      ['tefca-exchanges', 'healthy', null],
    ]);
    expect(body.webhooks).toEqual({ status: 'healthy', pending: 0, due: 0, oldest_pending_age_seconds: null, window_minutes: 60, attempts: 0, failed_attempts: 0, failure_rate: null });
  });

  it('turns degraded with a webhook backlog of a failing receiver, for the platform and its partner, not for another partner', async () => {
    const url = receiver.path('failing', { fallback: { status: 503 } });
    const created = await t.request({ method: 'POST', url: '/api/partner/webhooks', token: readerA, body: { url, event_types: ['pipeline.sync.completed'] } });
    expect(created.statusCode, created.body).toBe(201);
    receiver.setSecrets('failing', [(created.json() as { secret: string }).secret]);
    await completeJob(partnerA);

    const platform = await eventually(async () => {
      const h = await health();
      expect(h.webhooks.failed_attempts).toBeGreaterThanOrEqual(1);
      return h;
    });
    expect(platform.status).toBe('degraded');
    expect(platform.reasons).toEqual(['webhook delivery degraded']);
    expect(platform.webhooks).toMatchObject({ status: 'degraded', pending: 1, due: 0, attempts: 1, failed_attempts: 1, failure_rate: 1 });
    expect(platform.webhooks.oldest_pending_age_seconds).toBeGreaterThanOrEqual(0);
    expect(receiver.of('failing').map((r) => r.status)).toEqual([503]);

    expect(await health(readerA)).toMatchObject({ status: 'degraded', webhooks: { pending: 1, failed_attempts: 1 } });
    expect(await health(readerB)).toMatchObject({ status: 'idle', reasons: [], webhooks: { status: 'healthy', pending: 0, attempts: 0 } });
  });

  it('answers the same through GraphQL', async () => {
    const res = await t.graphql<{ pipelineHealth: { status: string; eventStream: { status: string }; consumers: { name: string }[]; webhooks: { failureRate: number } } }>(
      '{ pipelineHealth { status eventStream { status } consumers { name } webhooks { failureRate } } }',
    );
    expect(res.data?.pipelineHealth).toEqual({ status: 'degraded', eventStream: { status: 'up' }, consumers: [{ name: 'event-log' }, { name: 'sync-jobs' }, { name: 'webhooks' }, { name: 'tefca-exchanges' }], webhooks: { failureRate: 1 } });
  });
});
