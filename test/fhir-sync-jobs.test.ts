import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { freshStorage } from './support/databases.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

const ASYNC = { prefer: 'respond-async' };
const NDJSON = { 'content-type': 'application/fhir+ndjson' };

interface Polled {
  status: number;
  body: Record<string, unknown>;
}

/** Poll a status URL until the job is done; every in-progress answer is 202 with X-Progress and Retry-After. */
async function waitForJob(t: TestSystem, token: string, statusUrl: string): Promise<Polled> {
  const path = new URL(statusUrl).pathname;
  let done: Polled | undefined;
  await vi.waitFor(
    async () => {
      const res = await t.request({ url: path, token });
      if (res.statusCode === 202) {
        expect(res.headers['x-progress']).toEqual(expect.any(String));
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(res.statusCode).not.toBe(202);
      done = { status: res.statusCode, body: res.json() as Record<string, unknown> };
    },
    { timeout: 30_000, interval: 50 },
  );
  return done!;
}

interface LoggedEvent {
  id: string;
  type: string;
  partnerGpid: string | null;
  data: Record<string, unknown>;
}

/** The event log's events of one job (oldest first), as the operator sees them. */
async function jobEvents(t: TestSystem, jobId: string): Promise<LoggedEvent[]> {
  const res = await t.graphql<{ events: { edges: { node: LoggedEvent }[] } }>(
    '{ events(first: 100, types: ["pipeline.sync.queued", "pipeline.sync.started", "pipeline.sync.retrying", "pipeline.sync.completed", "pipeline.sync.failed"]) { edges { node { id type partnerGpid data } } } }',
  );
  expect(res.errors).toBeUndefined();
  return res.data!.events.edges.map((e) => e.node).filter((e) => e.data['job_id'] === jobId).reverse();
}

/** The job's final event, once the event log has it. */
async function finalEvent(t: TestSystem, jobId: string): Promise<LoggedEvent> {
  let found: LoggedEvent | undefined;
  await vi.waitFor(
    async () => {
      found = (await jobEvents(t, jobId)).find((e) => e.type === 'pipeline.sync.completed' || e.type === 'pipeline.sync.failed');
      expect(found).toBeDefined();
    },
    { timeout: 20_000, interval: 50 },
  );
  return found!;
}

interface ProjectedJob {
  jobId: string;
  status: string;
  recordsProcessed: number;
  resourceTypes: string[];
  errorCode: string | null;
  message: string | null;
  kind: string | null;
  attempts: number;
}
const JOB_QUERY = 'query($j: ID!) { syncJob(jobId: $j) { jobId status recordsProcessed resourceTypes errorCode message kind attempts } }';

async function projected(t: TestSystem, jobId: string, status: string, token?: string): Promise<ProjectedJob> {
  let job: ProjectedJob | null = null;
  await vi.waitFor(
    async () => {
      const res = await t.graphql<{ syncJob: ProjectedJob | null }>(JOB_QUERY, { j: jobId }, token);
      expect(res.errors).toBeUndefined();
      job = res.data!.syncJob;
      expect(job?.status).toBe(status);
    },
    { timeout: 20_000, interval: 50 },
  );
  return job!;
}

const patient = (family: string, extra: Record<string, unknown> = {}) => ({ resourceType: 'Patient', name: [{ family }], ...extra });

describe('asynchronous FHIR submissions are durable sync jobs', () => {
  let t: TestSystem;
  let pusher: string;
  let gpid: string;
  let stranger: string;

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    gpid = await registerPartner(t, 'Async Pusher');
    pusher = await apiToken(t, gpid, ['cms.fhir.bundle.push', 'cms.fhir.rest.write', 'cms.fhir.r4.read', 'cms.pipeline.read']);
    const other = await registerPartner(t, 'Async Stranger');
    stranger = await apiToken(t, other, ['cms.fhir.bundle.push', 'cms.fhir.r4.read', 'cms.pipeline.read']);
  });
  afterAll(() => t?.close());

  const search = async (query: string) => (await fhir(t, pusher, 'GET', `/Patient?${query}`)).json() as { total: number; entry?: { resource: { id: string; name: { family: string }[] } }[] };

  it('runs a transaction Bundle sent with Prefer: respond-async: 202, polling, the transaction-response, pipeline.sync.completed with the spec fields', async () => {
    const bundle = {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [
        { fullUrl: 'urn:uuid:0a4e6f3e-2f6e-4a57-9d58-111111111111', resource: patient('Asyncson'), request: { method: 'POST', url: 'Patient' } },
        { resource: { resourceType: 'Observation', status: 'final', code: { text: 'pulse' }, subject: { reference: 'urn:uuid:0a4e6f3e-2f6e-4a57-9d58-111111111111' } }, request: { method: 'POST', url: 'Observation' } },
      ],
    };
    const accepted = await fhir(t, pusher, 'POST', '', bundle, ASYNC);
    expect(accepted.statusCode, accepted.body).toBe(202);
    const statusUrl = accepted.headers['content-location'] as string;
    expect(statusUrl).toMatch(new RegExp(`^${t.config.publicUrl}/fhir/R4/\\$sync-status/job_[0-9a-z]{26}$`));
    const jobId = statusUrl.split('/').at(-1)!;
    expect(accepted.json().issue[0].diagnostics).toContain(jobId);

    const done = await waitForJob(t, pusher, statusUrl);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ resourceType: 'Bundle', type: 'transaction-response' });
    const entries = done.body['entry'] as { response: { status: string; location: string } }[];
    expect(entries.map((e) => e.response.status)).toEqual(['201 Created', '201 Created']);
    expect((await search('family=Asyncson')).total).toBe(1);

    const event = await finalEvent(t, jobId);
    expect(event.type).toBe('pipeline.sync.completed');
    expect(event.partnerGpid).toBe(gpid);
    expect(event.data).toEqual({ event: 'pipeline.sync.completed', job_id: jobId, partner_gpid: gpid, resource_types: ['Observation', 'Patient'], records_processed: 2, completed_at: expect.any(String) });
    expect(Number.isNaN(Date.parse(event.data['completed_at'] as string))).toBe(false);
    expect((await jobEvents(t, jobId)).map((e) => e.type)).toEqual(['pipeline.sync.queued', 'pipeline.sync.started', 'pipeline.sync.completed']);
  });
});
