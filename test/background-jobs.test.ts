import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { jobThreadCalls } from './support/metrics.js';

/**
 * Background jobs never stall a caller (platform/src/jobs): asynchronous submissions run on a job
 * thread beside the event loop that serves requests, partners are served in turn, and the queue is
 * bounded: a partner past its share is told 429 JOB_QUEUE_FULL, a full queue 503, both with
 * Retry-After, through the FHIR door, the wearables route and the GraphQL twin alike.
 */

const NDJSON = { 'content-type': 'application/fhir+ndjson', prefer: 'respond-async' };
const PER_PARTNER = 3;
const QUEUE_MAX = 5;
const SCOPES = ['cms.fhir.bundle.push', 'cms.fhir.rest.write', 'cms.fhir.r4.read', 'pulse.wearables.ingest'];

const patients = (family: string, n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ resourceType: 'Patient', name: [{ family }], birthDate: `19${String(10 + (i % 90)).padStart(2, '0')}-01-01` })).join('\n');

async function partnerToken(t: TestSystem, name: string): Promise<string> {
  const gpid = await registerPartner(t, name);
  const granted = await t.graphql('mutation($p: ID!, $s: [String!]!) { updatePartnerScopeGrant(partnerGpid: $p, scopes: $s) { grantedScopes } }', { p: gpid, s: [...SCOPES, 'cms.pipeline.read', 'cms.tokens.manage'] });
  expect(granted.errors).toBeUndefined();
  return apiToken(t, gpid, SCOPES);
}

function submit(t: TestSystem, token: string, family: string, lines: number) {
  return t.request({ method: 'POST', url: '/fhir/R4', token, headers: NDJSON, body: patients(family, lines) });
}

async function state(t: TestSystem, token: string, statusUrl: string): Promise<{ status: number; progress: string | undefined }> {
  const res = await t.request({ url: new URL(statusUrl).pathname, token });
  return { status: res.statusCode, progress: res.headers['x-progress'] as string | undefined };
}

async function finished(t: TestSystem, token: string, statusUrl: string): Promise<number> {
  let status = 0;
  await vi.waitFor(
    async () => {
      status = (await state(t, token, statusUrl)).status;
      expect(status).not.toBe(202);
    },
    { timeout: 120_000, interval: 100 },
  );
  return status;
}

describe('background jobs', () => {
  let t: TestSystem;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    for (const name of ['Busy Lab', 'Quiet Clinic']) tokens[name] = await partnerToken(t, name);
  });
  afterAll(() => t?.close());

  it('runs a job beside the request path: /health and FHIR reads are answered while it runs, and every record is stored once', async () => {
    const token = tokens['Busy Lab']!;
    const created = await fhir(t, token, 'POST', '/Patient', { resourceType: 'Patient', name: [{ family: 'Reader' }] });
    expect(created.statusCode).toBe(201);
    const checked = await jobThreadCalls(t, 'fhir-jobs', 'check-submission');
    const accepted = await submit(t, token, 'Offthread', 300);
    expect(accepted.statusCode, accepted.body).toBe(202);
    // The push was parsed and checked on the job thread too, not only run there.
    expect(await jobThreadCalls(t, 'fhir-jobs', 'check-submission')).toBe(checked + 1);
    const statusUrl = accepted.headers['content-location'] as string;
    await vi.waitFor(async () => expect((await state(t, token, statusUrl)).progress).toMatch(/^running/), { timeout: 120_000, interval: 20 });

    // On the event loop the job's entries ran back to back, and nothing else was answered until the
    // last one; on the job thread, requests are served in between.
    for (let i = 0; i < 5; i++) {
      expect((await t.request({ url: '/health', token: null })).statusCode).toBe(200);
      expect((await fhir(t, token, 'GET', `/Patient/${created.json().id}`)).statusCode).toBe(200);
    }
    const during = await state(t, token, statusUrl);
    expect(during.status).toBe(202);
    expect(during.progress).toMatch(/^running .*, \d+ of 300 entries processed/);

    expect(await finished(t, token, statusUrl)).toBe(200);
    const found = (await fhir(t, token, 'GET', '/Patient?family=Offthread&_summary=count')).json() as { total: number };
    expect(found.total).toBe(300);
  });

  it('serves partners in turn: a partner with one job waits for at most one job of a partner with many', async () => {
    const busy = tokens['Busy Lab']!;
    const quiet = tokens['Quiet Clinic']!;
    const many: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await submit(t, busy, `Turns${i}`, 150);
      expect(res.statusCode, res.body).toBe(202);
      many.push(res.headers['content-location'] as string);
    }
    const one = await submit(t, quiet, 'TurnsQuiet', 5);
    expect(one.statusCode, one.body).toBe(202);
    const oneUrl = one.headers['content-location'] as string;
    await finished(t, quiet, oneUrl);
    // When the quiet partner's job is done, the busy partner's last job has not started: it is still queued.
    const last = await state(t, busy, many.at(-1)!);
    expect(last).toEqual({ status: 202, progress: 'queued' });
    for (const url of many) expect(await finished(t, busy, url)).toBe(200);
  });
});

describe('a bounded job queue', () => {
  let t: TestSystem;
  const tokens: Record<string, string> = {};
  /** Entries of each job: with the pause after each entry, a job runs for 6 s at least, however fast the machine. */
  const ENTRIES = 12;

  beforeAll(async () => {
    // The test counts unfinished jobs while the first of them runs: the pause keeps it running.
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_FHIR_SYNC_QUEUE_PER_PARTNER: String(PER_PARTNER), SVC_FHIR_SYNC_QUEUE_MAX: String(QUEUE_MAX), SVC_FHIR_SYNC_ENTRY_PAUSE_MS: '500' });
    for (const name of ['Busy Lab', 'Quiet Clinic', 'Third Payer', 'Fourth Health']) tokens[name] = await partnerToken(t, name);
  });
  afterAll(() => t?.close());

  it('bounds the queue: past its share a partner gets 429 JOB_QUEUE_FULL with Retry-After, on every door; a full queue answers 503', async () => {
    const busy = tokens['Busy Lab']!;
    const urls: string[] = [];
    for (let i = 0; i < PER_PARTNER; i++) {
      const res = await submit(t, busy, `Queue${i}`, ENTRIES);
      expect(res.statusCode, res.body).toBe(202);
      urls.push(res.headers['content-location'] as string);
    }
    // FHIR: an OperationOutcome with the status and Retry-After.
    const refused = await submit(t, busy, 'QueueOver', 1);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toMatchObject({ resourceType: 'OperationOutcome' });
    expect(refused.body).toContain('JOB_QUEUE_FULL');
    // The wearables route: problem+json.
    const reading = { events: [{ event_id: 'q-1', patient_gpid: 'SVC-00A1B2C3', type: 'heart_rate', value: 70, unit: 'bpm', effective_time: new Date(Date.now() - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z') }] };
    const wearable = await t.request({ method: 'POST', url: '/pulse/v1/wearables/events', token: busy, body: reading });
    expect(wearable.statusCode, wearable.body).toBe(429);
    expect(wearable.headers['content-type']).toMatch(/problem\+json/);
    expect(wearable.json()).toMatchObject({ code: 'JOB_QUEUE_FULL' });
    expect(Number(wearable.headers['retry-after'])).toBeGreaterThan(0);
    // GraphQL: a typed error with the same code.
    const twin = await t.graphql('mutation($n: String!) { fhirSyncSubmit(ndjson: $n) { jobId } }', { n: patients('QueueTwin', 1) }, busy);
    expect(twin.errors?.[0]?.extensions).toMatchObject({ code: 'JOB_QUEUE_FULL' });

    // Other partners still have room, until the queue as a whole is full.
    const room = QUEUE_MAX - PER_PARTNER;
    for (let i = 0; i < room; i++) {
      const res = await submit(t, tokens[i === 0 ? 'Third Payer' : 'Fourth Health']!, `QueueOther${i}`, ENTRIES);
      expect(res.statusCode, res.body).toBe(202);
      urls.push(res.headers['content-location'] as string);
    }
    const full = await submit(t, tokens['Quiet Clinic']!, 'QueueFull', 1);
    expect(full.statusCode).toBe(503);
    expect(full.body).toContain('SERVER_BUSY');
    expect(Number(full.headers['retry-after'])).toBeGreaterThan(0);

    // Nothing refused was stored; what was accepted runs to its end.
    expect(await finished(t, busy, urls[0]!)).toBe(200);
    const over = (await fhir(t, busy, 'GET', '/Patient?family=QueueOver,QueueTwin&_summary=count')).json() as { total: number };
    expect(over.total).toBe(0);
  });
});
