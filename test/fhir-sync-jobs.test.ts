import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { freshStorage } from './support/databases.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { PATIENCE_MS } from './support/patience.js';

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
    // Twice the patience: the restarted job below still has its paced entries to run.
    { timeout: 2 * PATIENCE_MS, interval: 50 },
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
    { timeout: PATIENCE_MS, interval: 50 },
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
    { timeout: PATIENCE_MS, interval: 50 },
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
    const lifecycle = await jobEvents(t, jobId);
    expect(lifecycle.map((e) => e.type)).toEqual(['pipeline.sync.queued', 'pipeline.sync.started', 'pipeline.sync.completed']);
    // Intermediate events carry ids, counts and type names only.
    expect(lifecycle[0]!.data).toEqual({ event: 'pipeline.sync.queued', job_id: jobId, partner_gpid: gpid, kind: 'transaction', resource_types: ['Observation', 'Patient'], entries: 2, reason: 'submitted', sequence: 1, queued_at: expect.any(String) });
    expect(lifecycle[1]!.data).toEqual({ event: 'pipeline.sync.started', job_id: jobId, partner_gpid: gpid, attempt: 1, sequence: 2, started_at: expect.any(String) });

    // The pipeline's projection follows the job, and the partner reads it like its other jobs.
    const job = await projected(t, jobId, 'COMPLETED', pusher);
    expect(job).toMatchObject({ recordsProcessed: 2, resourceTypes: ['Observation', 'Patient'], kind: 'transaction', attempts: 1, errorCode: null });
    const listed = await t.graphql<{ partner: { syncJobs: { jobId: string; status: string }[] } }>('query($g: ID!) { partner(gpid: $g) { syncJobs { jobId status } } }', { g: gpid }, pusher);
    expect(listed.data!.partner.syncJobs).toContainEqual({ jobId, status: 'COMPLETED' });
    // A job the FHIR server runs is not finished by hand.
    const manual = await t.graphql('mutation($j: ID!) { failSyncJob(jobId: $j, errorCode: "VALIDATION_ERROR", message: "no") { status } }', { j: jobId });
    expect(manual.errors?.[0]?.extensions?.['code']).toBe('CONFLICT');
  });

  it('refuses a whole transaction with an invalid entry: pipeline.sync.failed VALIDATION_ERROR naming every invalid entry, nothing written', async () => {
    const bundle = {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [
        { resource: patient('Rollbackson'), request: { method: 'POST', url: 'Patient' } },
        { resource: patient('Rollbackson', { gender: 'xyz' }), request: { method: 'POST', url: 'Patient' } },
        { resource: patient('Rollbackson', { birthDate: 'yesterday' }), request: { method: 'POST', url: 'Patient' } },
      ],
    };
    const accepted = await fhir(t, pusher, 'POST', '', bundle, ASYNC);
    expect(accepted.statusCode, accepted.body).toBe(202);
    const statusUrl = accepted.headers['content-location'] as string;
    const jobId = statusUrl.split('/').at(-1)!;
    const done = await waitForJob(t, pusher, statusUrl);
    expect(done.status).toBe(422);
    expect(done.body['resourceType']).toBe('OperationOutcome');
    const expressions = (done.body['issue'] as { expression: string[] }[]).map((i) => i.expression[0]);
    expect(expressions).toContain('Bundle.entry[1].resource.gender');
    expect(expressions.some((e) => e?.startsWith('Bundle.entry[2].resource.birthDate') === true)).toBe(true);

    const event = await finalEvent(t, jobId);
    expect(event.type).toBe('pipeline.sync.failed');
    expect(Object.keys(event.data).sort()).toEqual(['error_code', 'event', 'failed_at', 'job_id', 'message']);
    expect(event.data).toMatchObject({ event: 'pipeline.sync.failed', job_id: jobId, error_code: 'VALIDATION_ERROR' });
    expect(event.data['message']).toMatch(/^Bundle\.entry\[1\]\.resource\.gender: /);
    expect(event.data['message']).toContain('Bundle.entry[2]');
    expect((await search('family=Rollbackson')).total).toBe(0);
    const job = await projected(t, jobId, 'FAILED');
    expect(job).toMatchObject({ errorCode: 'VALIDATION_ERROR', message: event.data['message'] });
  });

  it('runs a batch: every entry answered, a refused entry fails the job by name while the others are written', async () => {
    const good = await fhir(t, pusher, 'POST', '', { resourceType: 'Bundle', type: 'batch', entry: [{ resource: patient('Batchwell'), request: { method: 'POST', url: 'Patient' } }] }, ASYNC);
    const goodDone = await waitForJob(t, pusher, good.headers['content-location'] as string);
    expect(goodDone.status).toBe(200);
    expect(goodDone.body).toMatchObject({ type: 'batch-response', entry: [{ response: { status: '201 Created' } }] });
    const goodEvent = await finalEvent(t, (good.headers['content-location'] as string).split('/').at(-1)!);
    expect(goodEvent.data).toMatchObject({ event: 'pipeline.sync.completed', records_processed: 1, resource_types: ['Patient'] });

    const bundle = {
      resourceType: 'Bundle',
      type: 'batch',
      entry: [
        { resource: patient('Batchmix'), request: { method: 'POST', url: 'Patient' } },
        { resource: patient('Batchmix', { gender: 'xyz' }), request: { method: 'POST', url: 'Patient' } },
        { resource: patient('Batchmix'), request: { method: 'POST', url: 'Patient' } },
      ],
    };
    const accepted = await fhir(t, pusher, 'POST', '', bundle, ASYNC);
    const statusUrl = accepted.headers['content-location'] as string;
    const done = await waitForJob(t, pusher, statusUrl);
    expect(done.status).toBe(200);
    const entries = done.body['entry'] as { response: { status: string; outcome?: { issue: { expression: string[] }[] } } }[];
    expect(entries.map((e) => e.response.status)).toEqual(['201 Created', '422 Unprocessable Entity', '201 Created']);
    expect(entries[1]!.response.outcome!.issue[0]!.expression).toEqual(['Bundle.entry[1].resource.gender']);
    expect((await search('family=Batchmix')).total).toBe(2);
    const event = await finalEvent(t, statusUrl.split('/').at(-1)!);
    expect(event.data).toMatchObject({ event: 'pipeline.sync.failed', error_code: 'VALIDATION_ERROR' });
    expect(event.data['message']).toMatch(/^Bundle\.entry\[1\]\.resource\.gender: .*\(1 of 3 entries refused; the other 2 were written\)$/);
  });

  it('takes an NDJSON push: lines without id are created, lines with id update, and a bad line is refused by its number', async () => {
    const existing = (await fhir(t, pusher, 'POST', '/Patient', patient('Before'))).json() as { id: string };
    const lines = [JSON.stringify(patient('Ndjsonly')), '', JSON.stringify({ ...patient('After'), id: existing.id }), JSON.stringify({ resourceType: 'Observation', status: 'final', code: { text: 'weight' } })];
    const accepted = await t.request({ method: 'POST', url: '/fhir/R4', token: pusher, headers: NDJSON, body: `${lines.join('\n')}\n` });
    expect(accepted.statusCode, accepted.body).toBe(202);
    const statusUrl = accepted.headers['content-location'] as string;
    const done = await waitForJob(t, pusher, statusUrl);
    expect(done.status).toBe(200);
    expect((done.body['entry'] as { response: { status: string } }[]).map((e) => e.response.status)).toEqual(['201 Created', '200 OK', '201 Created']);
    expect((await search('family=Ndjsonly')).total).toBe(1);
    expect((await fhir(t, pusher, 'GET', `/Patient/${existing.id}`)).json().name[0].family).toBe('After');
    const event = await finalEvent(t, statusUrl.split('/').at(-1)!);
    expect(event.data).toMatchObject({ event: 'pipeline.sync.completed', records_processed: 3, resource_types: ['Observation', 'Patient'] });

    const invalid = await t.request({ method: 'POST', url: '/fhir/R4', token: pusher, headers: NDJSON, body: `${JSON.stringify(patient('X'))}\n{not json\n` });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().issue[0].expression).toEqual(['line 2']);

    const refused = await t.request({ method: 'POST', url: '/fhir/R4', token: pusher, headers: NDJSON, body: `${JSON.stringify(patient('Ndjsonbad', { gender: 'xyz', birthDate: '' }))}\n` });
    const refusedEvent = await finalEvent(t, (refused.headers['content-location'] as string).split('/').at(-1)!);
    expect(refusedEvent.data).toMatchObject({ event: 'pipeline.sync.failed', error_code: 'VALIDATION_ERROR' });
    expect(refusedEvent.data['message']).toMatch(/^line 1: Patient\.gender: /);
    // R4 json.html: "String property values can never be empty" holds for an import too.
    const refusedOutcome = await waitForJob(t, pusher, refused.headers['content-location'] as string);
    const named = [...JSON.stringify(refusedOutcome.body).matchAll(/"expression":\["([^"]+)"\]/g)].map((m) => m[1]);
    expect(named, JSON.stringify(refusedOutcome.body)).toEqual([expect.stringMatching(/Patient\.gender$/), expect.stringMatching(/Patient\.birthDate$/)]);
  });

  it('shows a job only to the partner that submitted it; others get 404 and null, like a missing job', async () => {
    const accepted = await fhir(t, pusher, 'POST', '', { resourceType: 'Bundle', type: 'batch', entry: [] }, ASYNC);
    const statusUrl = accepted.headers['content-location'] as string;
    const jobId = statusUrl.split('/').at(-1)!;
    await waitForJob(t, pusher, statusUrl);
    const other = await t.request({ url: new URL(statusUrl).pathname, token: stranger });
    const missing = await t.request({ url: `/fhir/R4/$sync-status/job_01jaaaaaaaaaaaaaaaaaaaaaaa`, token: stranger });
    expect(other.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(other.json().issue[0].code).toBe(missing.json().issue[0].code);
    await projected(t, jobId, 'COMPLETED');
    const projectedForOther = await t.graphql<{ syncJob: unknown }>(JOB_QUERY, { j: jobId }, stranger);
    expect(projectedForOther.data!.syncJob).toBeNull();
    // Without the bundle push scope there is no job at all.
    const reader = await apiToken(t, gpid, ['cms.fhir.r4.read']);
    expect((await fhir(t, reader, 'POST', '', { resourceType: 'Bundle', type: 'batch', entry: [] }, ASYNC)).statusCode).toBe(403);
  });

  it('reports per-partner metrics over a window from the stored jobs, and refuses a bad window or parameter by name', async () => {
    const res = await t.request({ url: '/cms/pipeline/partners?window=1h', token: pusher });
    expect(res.statusCode, res.body).toBe(200);
    const [mine] = res.json().partners as Record<string, unknown>[];
    expect(mine).toMatchObject({ partner_gpid: gpid, window: '1h', jobs_completed: 4, jobs_failed: 3, jobs_in_flight: 0, jobs_total: 7, records_processed: 6 });
    expect(mine!['sync_success_rate']).toBeCloseTo(4 / 7);
    expect(mine!['error_codes']).toEqual([{ code: 'VALIDATION_ERROR', count: 3 }]);
    expect(Date.parse(mine!['last_completed_at'] as string)).not.toBeNaN();
    expect(Date.parse(mine!['last_failed_at'] as string)).not.toBeNaN();

    const bad = await t.request({ url: '/cms/pipeline/partners?window=2h', token: pusher });
    expect(bad.statusCode).toBe(422);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(bad.json().errors).toEqual([{ field: 'window', message: 'must be one of 1h, 24h, 7d, 30d' }]);
    const unknown = await t.request({ url: '/cms/pipeline/partners?windw=1h', token: pusher });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors[0].field).toBe('windw');

    // The GraphQL twin answers the same numbers and the same validation.
    const twin = await t.graphql<{ partner: { pipelineMetrics: { jobsTotal: number; errorCodes: { code: string; count: number }[] } } }>(
      'query($g: ID!) { partner(gpid: $g) { pipelineMetrics(window: "1h") { jobsTotal errorCodes { code count } } } }',
      { g: gpid },
      pusher,
    );
    expect(twin.data!.partner.pipelineMetrics).toEqual({ jobsTotal: 7, errorCodes: [{ code: 'VALIDATION_ERROR', count: 3 }] });
    const twinBad = await t.graphql('query($g: ID!) { partner(gpid: $g) { pipelineMetrics(window: "1y") { jobsTotal } } }', { g: gpid }, pusher);
    expect(twinBad.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('a sync job survives a restart in the middle', async () => {
  const storage = await freshStorage();
  afterAll(() => storage.dispose());
  // Two seconds between entries: the stop below comes at least two entries (4 s) before the end,
  // however long a busy machine takes to see the progress and to stop.
  const env = { SVC_BOOTSTRAP_TOKEN: 'sync-restart-operator-0123456789', SVC_RATE_LIMITS: 'off', SVC_FHIR_SYNC_ENTRY_PAUSE_MS: '2000', SVC_EVENT_CLAIM_IDLE_MS: '1000' };

  it('resumes a running NDJSON job after the system stopped and writes every line exactly once, with one pipeline.sync.completed', async () => {
    const first = await bootSystem(env, { storage });
    let pusher = '';
    let statusUrl = '';
    try {
      pusher = await apiToken(first, null, ['cms.fhir.bundle.push', 'cms.fhir.rest.write', 'cms.fhir.r4.read']);
      const body = Array.from({ length: 8 }, (_, i) => JSON.stringify(patient('Restartline', { birthDate: `2000-01-0${i + 1}` }))).join('\n');
      const accepted = await first.request({ method: 'POST', url: '/fhir/R4', token: pusher, headers: NDJSON, body });
      expect(accepted.statusCode).toBe(202);
      statusUrl = accepted.headers['content-location'] as string;
      await vi.waitFor(
        async () => {
          const res = await first.request({ url: new URL(statusUrl).pathname, token: pusher });
          expect(res.statusCode).toBe(202);
          expect(res.headers['x-progress']).toMatch(/running .*, [1-6] of 8 entries processed/);
        },
        { timeout: 2 * PATIENCE_MS, interval: 20 },
      );
    } finally {
      await first.close();
    }

    const second = await bootSystem(env, { storage });
    try {
      const jobId = statusUrl.split('/').at(-1)!;
      const done = await waitForJob(second, pusher, statusUrl);
      expect(done.status).toBe(200);
      expect((done.body['entry'] as unknown[]).length).toBe(8);
      const found = (await fhir(second, pusher, 'GET', '/Patient?family=Restartline&_count=50')).json() as { total: number; entry: { resource: { birthDate: string } }[] };
      expect(found.total).toBe(8);
      expect(new Set(found.entry.map((e) => e.resource.birthDate)).size).toBe(8);
      const final = await finalEvent(second, jobId);
      expect(final.data).toMatchObject({ event: 'pipeline.sync.completed', records_processed: 8 });
      // The event log is a consumer like any other: an event the stopped process had read but not
      // acknowledged reaches it once another process claims it (at-least-once, SVC_EVENT_CLAIM_IDLE_MS).
      await vi.waitFor(
        async () => {
          const lifecycle = (await jobEvents(second, jobId)).map((e) => e.type);
          expect(lifecycle.filter((type) => type === 'pipeline.sync.completed')).toHaveLength(1);
          // Given back at the stop (queued, released) and started again after the restart.
          expect(lifecycle.filter((type) => type === 'pipeline.sync.started')).toHaveLength(2);
          expect(lifecycle.filter((type) => type === 'pipeline.sync.queued')).toHaveLength(2);
        },
        { timeout: PATIENCE_MS, interval: 200 },
      );
      const job = await projected(second, jobId, 'COMPLETED');
      expect(job).toMatchObject({ recordsProcessed: 8, kind: 'ndjson', attempts: 1 });
    } finally {
      await second.close();
    }
  }, 300_000);
});
