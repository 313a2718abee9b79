import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { PATIENCE_MS } from './support/patience.js';

/**
 * Wearable ingest (POST /{wearableProduct}/v1/wearables/events and its GraphQL twin): each batch is
 * a sync job that stores FHIR Observations with LOINC codes and UCUM units, linked to the patient's
 * GPID, idempotent by event id; a bad reading refuses the batch with its index and field named.
 */

const GPID_SYSTEM = 'urn:svc:gpid';
const LOINC = 'http://loinc.org';
const DEFAULT_GRANT = ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push', 'cms.pipeline.read', 'cms.tokens.manage', 'identity.read'];

interface Observation {
  id: string;
  identifier: { system: string; value: string }[];
  code: { coding: { system: string; code: string }[] };
  category: { coding: { code: string }[] }[];
  subject: { reference?: string; identifier: { system: string; value: string } };
  valueQuantity?: { value: number; code: string; system: string };
  component?: { code: { coding: { code: string }[] }; valueQuantity: { value: number; code: string } }[];
  device?: { display: string };
  effectiveDateTime?: string;
  effectivePeriod?: { start: string; end: string };
}

interface LoggedEvent {
  type: string;
  partnerGpid: string | null;
  data: Record<string, unknown>;
}

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('wearable ingest', () => {
  let t: TestSystem;
  let partnerGpid: string;
  let device: string;
  let noWearables: string;
  let stranger: string;
  let patientId: string;
  let gpid: string;
  const unlinkedGpid = 'SVC-0FEEDBAC';

  const post = (token: string, product: string, body: unknown) => t.request({ method: 'POST', url: `/${product}/v1/wearables/events`, token, body });

  async function grant(gpidOfPartner: string, scopes: string[]): Promise<void> {
    const res = await t.graphql('mutation($p: ID!, $s: [String!]!) { updatePartnerScopeGrant(partnerGpid: $p, scopes: $s) { grantedScopes } }', { p: gpidOfPartner, s: scopes });
    expect(res.errors).toBeUndefined();
  }

  /** Poll the job's status URL until it is done; answers the batch-response. */
  async function finished(token: string, statusUrl: string): Promise<{ status: number; body: { type?: string; entry: { response: { status: string; location?: string } }[] } }> {
    let done: { status: number; body: { entry: { response: { status: string } }[] } } | undefined;
    await vi.waitFor(
      async () => {
        const res = await t.request({ url: new URL(statusUrl).pathname, token });
        expect(res.statusCode).not.toBe(202);
        done = { status: res.statusCode, body: res.json() };
      },
      { timeout: PATIENCE_MS, interval: 50 },
    );
    return done!;
  }

  async function finalEvent(jobId: string): Promise<LoggedEvent> {
    let found: LoggedEvent | undefined;
    await vi.waitFor(
      async () => {
        const res = await t.graphql<{ events: { edges: { node: LoggedEvent }[] } }>('{ events(first: 100, types: ["pipeline.sync.completed", "pipeline.sync.failed"]) { edges { node { type partnerGpid data } } } }');
        found = res.data!.events.edges.map((e) => e.node).find((e) => e.data['job_id'] === jobId);
        expect(found).toBeDefined();
      },
      { timeout: PATIENCE_MS, interval: 50 },
    );
    return found!;
  }

  async function observations(token: string, query: string): Promise<Observation[]> {
    const res = await fhir(t, token, 'GET', `/Observation?${query}&_count=100`);
    expect(res.statusCode, res.body).toBe(200);
    return ((res.json() as { entry?: { resource: Observation }[] }).entry ?? []).map((e) => e.resource);
  }

  const batch = () => ({
    events: [
      { event_id: 'hr-1', patient_gpid: gpid, type: 'heart_rate', value: 72, unit: 'bpm', effective_time: minutesAgo(30), device: { id: 'band-7', manufacturer: 'Acme', model: 'Band 3' } },
      { event_id: 'spo2-1', patient_gpid: gpid, type: 'spo2', value: 97, unit: '%', effective_time: minutesAgo(30) },
      { event_id: 'steps-1', patient_gpid: gpid, type: 'steps', value: 4200, unit: 'steps', effective_period: { start: minutesAgo(120), end: minutesAgo(60) } },
      { event_id: 'bp-1', patient_gpid: gpid, type: 'blood_pressure', value: { systolic: 121, diastolic: 79 }, unit: 'mmHg', effective_time: minutesAgo(20) },
      { event_id: 'temp-1', patient_gpid: gpid, type: 'body_temperature', value: 98.6, unit: '[degF]', effective_time: minutesAgo(10) },
    ],
  });

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    partnerGpid = await registerPartner(t, 'Pulse Devices');
    // Wearable scopes are granted by an operator, under the catalog's pulse.wearables.*.
    await grant(partnerGpid, [...DEFAULT_GRANT, 'pulse.wearables.*']);
    device = await apiToken(t, partnerGpid, ['pulse.wearables.ingest', 'cms.fhir.r4.read', 'cms.fhir.rest.write']);
    noWearables = await apiToken(t, partnerGpid, ['cms.fhir.r4.read']);
    const other = await registerPartner(t, 'Other Devices');
    await grant(other, [...DEFAULT_GRANT, 'pulse.wearables.ingest']);
    stranger = await apiToken(t, other, ['pulse.wearables.ingest', 'cms.fhir.r4.read']);

    // The partner's Patient, linked to its GPID by the identity registry (written with X-Svc-Source).
    const created = await fhir(t, device, 'POST', '/Patient', { resourceType: 'Patient', name: [{ family: 'Okafor', given: ['Ada'] }], birthDate: '1979-05-02' }, { 'x-svc-source': 'pulse' });
    expect(created.statusCode).toBe(201);
    patientId = created.json().id;
    await vi.waitFor(
      async () => {
        const p = (await fhir(t, device, 'GET', `/Patient/${patientId}`)).json() as { identifier?: { system: string; value: string }[] };
        const value = p.identifier?.find((i) => i.system === GPID_SYSTEM)?.value;
        expect(value).toMatch(/^SVC-[0-9A-F]{8}$/);
        gpid = value!;
      },
      { timeout: PATIENCE_MS, interval: 50 },
    );
  });
  afterAll(() => t?.close());

  it('stores a batch as Observations with LOINC codes and UCUM units through a sync job ending with pipeline.sync.completed', async () => {
    const res = await post(device, 'pulse', batch());
    expect(res.statusCode, res.body).toBe(202);
    const body = res.json();
    expect(body).toEqual({ job_id: expect.stringMatching(/^job_/), status: 'queued', status_url: expect.any(String), product: 'pulse', events_accepted: 5, patients: [{ gpid, patient_reference: `Patient/${patientId}` }] });
    expect(res.headers['content-location']).toBe(body.status_url);
    expect(body.status_url).toBe(`${t.config.publicUrl}/fhir/R4/$sync-status/${body.job_id}`);

    const done = await finished(device, body.status_url);
    expect(done.status).toBe(200);
    expect(done.body.type).toBe('batch-response');
    expect(done.body.entry.map((e) => e.response.status)).toEqual(Array(5).fill('201 Created'));
    const event = await finalEvent(body.job_id);
    expect(event).toMatchObject({ type: 'pipeline.sync.completed', partnerGpid, data: { event: 'pipeline.sync.completed', job_id: body.job_id, partner_gpid: partnerGpid, resource_types: ['Observation'], records_processed: 5 } });

    // Readable through FHIR search by patient and code.
    const [hr, ...others] = await observations(device, `patient=Patient/${patientId}&code=${LOINC}|8867-4`);
    expect(others).toEqual([]);
    expect(hr).toMatchObject({
      identifier: [{ system: 'urn:svc:wearables:pulse:event', value: 'hr-1' }],
      category: [{ coding: [{ code: 'vital-signs' }] }],
      subject: { reference: `Patient/${patientId}`, identifier: { system: GPID_SYSTEM, value: gpid } },
      valueQuantity: { value: 72, system: 'http://unitsofmeasure.org', code: '/min' },
      device: { display: 'Acme Band 3' },
    });
    const [temp] = await observations(device, `subject:identifier=${GPID_SYSTEM}|${gpid}&code=${LOINC}|8310-5`);
    expect(temp!.valueQuantity).toMatchObject({ value: 37, code: 'Cel' });
    const [bp] = await observations(device, `patient=Patient/${patientId}&code=${LOINC}|85354-9`);
    expect(bp!.component!.map((c) => [c.code.coding[0]!.code, c.valueQuantity.value, c.valueQuantity.code])).toEqual([['8480-6', 121, 'mm[Hg]'], ['8462-4', 79, 'mm[Hg]']]);
    const [steps] = await observations(device, `patient=Patient/${patientId}&category=activity`);
    expect(steps).toMatchObject({ code: { coding: [{ code: '55423-8' }] }, valueQuantity: { value: 4200, code: '{steps}' }, effectivePeriod: { start: expect.any(String), end: expect.any(String) } });
    expect(await observations(device, `patient=Patient/${patientId}&code=${LOINC}|59408-5`)).toHaveLength(1);
    expect(await observations(device, `patient=Patient/${patientId}`)).toHaveLength(5);
  });

  it('stores a batch sent twice once: the second job answers 200 OK for every reading and adds nothing', async () => {
    const before = await observations(device, `subject:identifier=${GPID_SYSTEM}|${gpid}`);
    const again = await post(device, 'pulse', batch());
    expect(again.statusCode).toBe(202);
    const done = await finished(device, again.json().status_url);
    expect(done.body.entry.map((e) => e.response.status)).toEqual(Array(5).fill('200 OK'));
    expect((await finalEvent(again.json().job_id)).type).toBe('pipeline.sync.completed');
    const after = await observations(device, `subject:identifier=${GPID_SYSTEM}|${gpid}`);
    expect(after.map((o) => o.id).sort()).toEqual(before.map((o) => o.id).sort());
    expect(after).toHaveLength(5);

    // An overlapping batch: the known reading is found, the new one created.
    const overlap = await post(device, 'pulse', { events: [batch().events[0], { event_id: 'hr-2', patient_gpid: gpid, type: 'heart_rate', value: 64, unit: '/min', effective_time: minutesAgo(5) }] });
    const overlapDone = await finished(device, overlap.json().status_url);
    expect(overlapDone.body.entry.map((e) => e.response.status)).toEqual(['200 OK', '201 Created']);
    expect(await observations(device, `patient=Patient/${patientId}&code=${LOINC}|8867-4`)).toHaveLength(2);
  });

  it('refuses a batch with a bad reading: 422 naming each reading by index and field, nothing queued', async () => {
    const before = (await observations(device, `subject:identifier=${GPID_SYSTEM}|${gpid}`)).length;
    const res = await post(device, 'pulse', {
      events: [
        { event_id: 'ok-9', patient_gpid: gpid, type: 'heart_rate', value: 70, unit: '/min', effective_time: minutesAgo(1) },
        { event_id: 'bad-1', patient_gpid: gpid, type: 'heart_rate', value: 720, unit: '/min', effective_time: minutesAgo(1) },
        { event_id: 'bad-2', patient_gpid: gpid, type: 'blood_sugar', value: 5, unit: 'mmol/L', effective_time: minutesAgo(1) },
        { event_id: 'bad-3', patient_gpid: gpid, type: 'body_weight', value: 80, unit: 'Cel', effective_time: minutesAgo(1) },
      ],
    });
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const problem = res.json();
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors).toEqual([
      { field: 'events[1].value', message: '720 /min is not a plausible heart_rate: expected 20 to 300 /min' },
      { field: 'events[2].type', message: expect.stringContaining('must be one of heart_rate') },
      { field: 'events[3].unit', message: 'Cel cannot be converted to kg (expected a unit of the same kind as kg)' },
    ]);
    expect(problem.detail).toContain('nothing was queued');
    // A body that is not a batch at all is named too (never a 500).
    const notObject = await t.request({ method: 'POST', url: '/pulse/v1/wearables/events', token: device, body: [1, 2] });
    expect(notObject.statusCode).toBe(422);
    expect(notObject.json().errors).toEqual([{ field: '', message: 'must be a JSON object with an events array' }]);
    expect(await observations(device, `subject:identifier=${GPID_SYSTEM}|${gpid}`)).toHaveLength(before);
  });

  it('links readings of a GPID the partner has no Patient for by the GPID identifier alone', async () => {
    const res = await post(device, 'pulse', { events: [{ event_id: 'w-1', patient_gpid: unlinkedGpid, type: 'body_weight', value: 154, unit: 'lb', effective_time: minutesAgo(3) }] });
    expect(res.json().patients).toEqual([{ gpid: unlinkedGpid, patient_reference: null }]);
    await finished(device, res.json().status_url);
    const [weight] = await observations(device, `subject:identifier=${GPID_SYSTEM}|${unlinkedGpid}&code=${LOINC}|29463-7`);
    expect(weight!.subject).toEqual({ type: 'Patient', identifier: { system: GPID_SYSTEM, value: unlinkedGpid } });
    expect(weight!.valueQuantity).toMatchObject({ value: 69.853, code: 'kg' });
  });

  it('keeps partners apart: the same event ids of another partner are its own readings, and neither sees the other', async () => {
    const res = await post(stranger, 'pulse', { events: [{ event_id: 'hr-1', patient_gpid: gpid, type: 'heart_rate', value: 90, unit: '/min', effective_time: minutesAgo(2) }] });
    expect(res.statusCode).toBe(202);
    // The stranger has no Patient with this GPID: no reference to the first partner's Patient.
    expect(res.json().patients).toEqual([{ gpid, patient_reference: null }]);
    const done = await finished(stranger, res.json().status_url);
    expect(done.body.entry[0]!.response.status).toBe('201 Created');
    const mine = await observations(stranger, `subject:identifier=${GPID_SYSTEM}|${gpid}`);
    expect(mine.map((o) => o.valueQuantity!.value)).toEqual([90]);
    expect(await observations(device, `patient=Patient/${patientId}&code=${LOINC}|8867-4`)).toHaveLength(2);
    // The job's status is the submitting partner's only.
    expect((await t.request({ url: new URL(res.json().status_url as string).pathname, token: device })).statusCode).toBe(404);
  });

  it('fails the job with pipeline.sync.failed when a reading cannot be stored once (two stored Observations claim its event id)', async () => {
    const claim = { resourceType: 'Observation', status: 'final', code: { text: 'hand-written' }, identifier: [{ system: 'urn:svc:wearables:pulse:event', value: 'dup-1' }] };
    for (let i = 0; i < 2; i++) expect((await fhir(t, device, 'POST', '/Observation', claim)).statusCode).toBe(201);
    const res = await post(device, 'pulse', { events: [{ event_id: 'dup-1', patient_gpid: gpid, type: 'heart_rate', value: 66, unit: '/min', effective_time: minutesAgo(1) }] });
    expect(res.statusCode).toBe(202);
    const done = await finished(device, res.json().status_url);
    expect(done.body.entry[0]!.response.status).toBe('412 Precondition Failed');
    const event = await finalEvent(res.json().job_id);
    expect(event.type).toBe('pipeline.sync.failed');
    expect(event.data).toMatchObject({ job_id: res.json().job_id, error_code: 'PRECONDITION_FAILED', message: expect.stringContaining('Bundle.entry[0]') });
  });

  it('answers 404 for a product that takes no wearable readings and 403 without the product scope', async () => {
    const one = { events: [{ event_id: 'x-1', patient_gpid: gpid, type: 'heart_rate', value: 70, unit: '/min', effective_time: minutesAgo(1) }] };
    const unknown = await post(device, 'fitbit', one);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().detail).toContain('/pulse/v1/wearables/events');
    expect((await post(device, 'tefca', one)).statusCode).toBe(404);
    const otherProduct = await post(device, 'beacon', one);
    expect(otherProduct.statusCode).toBe(403);
    expect(otherProduct.json().code).toBe('INSUFFICIENT_SCOPE');
    expect((await post(noWearables, 'pulse', one)).statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: '/pulse/v1/wearables/events', token: null, body: one })).statusCode).toBe(401);
  });

  it('has a GraphQL twin with the same scope and validation', async () => {
    const doc = 'mutation($p: String!, $b: JSONObject!) { wearableEventsIngest(product: $p, batch: $b) { jobId statusUrl product eventsAccepted patients { gpid patientReference } } }';
    const bad = await t.graphql(doc, { p: 'pulse', b: { events: [{ event_id: 'g-1', patient_gpid: gpid, type: 'spo2', value: 130, unit: '%', effective_time: minutesAgo(1) }] } }, device);
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'events[0].value', message: '130 % is not a plausible spo2: expected 50 to 100 %' }] });
    const denied = await t.graphql(doc, { p: 'pulse', b: { events: [] } }, noWearables);
    expect(denied.errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');
    const ok = await t.graphql<{ wearableEventsIngest: { jobId: string; statusUrl: string; eventsAccepted: number } }>(
      doc,
      { p: 'pulse', b: { events: [{ event_id: 'g-2', patient_gpid: gpid, type: 'respiratory_rate', value: 14, unit: '/min', effective_time: minutesAgo(1) }] } },
      device,
    );
    expect(ok.errors).toBeUndefined();
    expect(ok.data!.wearableEventsIngest).toMatchObject({ jobId: expect.stringMatching(/^job_/), eventsAccepted: 1 });
    await finished(device, ok.data!.wearableEventsIngest.statusUrl);
    expect(await observations(device, `patient=Patient/${patientId}&code=${LOINC}|9279-1`)).toHaveLength(1);
  });

  it('is documented in the route catalog and OpenAPI with its scopes, limit and product values', async () => {
    const doc = (await t.request({ url: '/api/openapi/all.json' })).json() as { paths: Record<string, { post?: { parameters?: { name: string; schema: { enum?: string[] } }[]; requestBody?: unknown; responses: Record<string, unknown> } }> };
    const op = doc.paths['/{wearableProduct}/v1/wearables/events']!.post!;
    expect(op.parameters!.find((p) => p.name === 'wearableProduct')!.schema.enum).toEqual(['pulse', 'beacon']);
    expect(op.requestBody).toBeDefined();
    expect(op.responses['202']).toBeDefined();
    const catalog = (await t.request({ url: '/api/partner/routes?product=wearables', token: device })).json() as { routes: Record<string, unknown>[] };
    expect(catalog.routes).toEqual([
      expect.objectContaining({
        path: '/{wearableProduct}/v1/wearables/events',
        scopes: ['pulse.wearables.ingest', 'beacon.wearables.ingest'],
        rate_limit: { limit: 120, window_seconds: 60, text: '120/min' },
        success_status: 202,
        implemented: true,
      }),
    ]);
  });
});

describe('wearable ingest limits', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem();
  });
  afterAll(() => t?.close());

  it('spends one counter of 120/min through REST and GraphQL alike, then answers 429', async () => {
    // Refused batches still count: the limit is spent before the body is read. Paced under the
    // product's burst limit (30/s) so that only the route's own limit can bind.
    const empty = { events: [] };
    const doc = 'mutation($b: JSONObject!) { wearableEventsIngest(product: "pulse", batch: $b) { jobId } }';
    for (let i = 0; i < 120; i++) {
      if (i > 0 && i % 25 === 0) await new Promise((r) => setTimeout(r, 1100));
      if (i % 2 === 0) {
        const res = await t.request({ method: 'POST', url: '/pulse/v1/wearables/events', body: empty });
        expect(res.statusCode).toBe(422);
      } else {
        const res = await t.graphql(doc, { b: empty });
        expect(res.errors?.[0]?.extensions?.['code']).toBe('VALIDATION_ERROR');
      }
    }
    await new Promise((r) => setTimeout(r, 1100));
    const limited = await t.request({ method: 'POST', url: '/pulse/v1/wearables/events', body: empty });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toEqual(expect.any(String));
    const twin = await t.graphql(doc, { b: empty });
    expect(twin.errors?.[0]?.extensions?.['code']).toBe('RATE_LIMITED');
  });
});
