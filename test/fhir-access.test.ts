import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { queryCount } from './support/metrics.js';
import { PATIENCE_MS } from './support/patience.js';

/** The outbox relay's periodic sweep here (writes and a read window's first event wake it at once). */
const OUTBOX_POLL_MS = 1000;
/** How long the FHIR read-event log counts reads into one event (READ_EVENT_WINDOW_MS, subgraphs/fhir/src/domain/read-events.ts). */
const READ_WINDOW_MS = 1000;

/**
 * Who may do what on /fhir/R4: tenancy (a partner sees only what it wrote, an operator sees all,
 * another tenant's resource answers like a missing one), scopes per interaction (the spec's product
 * scopes, SMART v1 and v2), discovery (CapabilityStatement, SMART configuration) and the
 * fhir.resource.* events.
 */
describe('FHIR R4 tenancy, scopes, discovery and events', () => {
  let t: TestSystem;
  let alpha: string;
  let beta: string;
  let alphaGpid: string;
  const patient = { resourceType: 'Patient', gender: 'female', name: [{ family: 'Tenant' }] };

  beforeAll(async () => {
    // Many requests a second: the burst limit is not what this file tests.
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_OUTBOX_POLL_MS: String(OUTBOX_POLL_MS) });
    alphaGpid = await registerPartner(t, 'Alpha Labs');
    alpha = await apiToken(t, alphaGpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    beta = await apiToken(t, await registerPartner(t, 'Beta Labs'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
  });
  afterAll(() => t?.close());

  it("keeps each partner to its own resources, both ways, answering another tenant's like a missing one", async () => {
    const a = (await fhir(t, alpha, 'POST', '/Patient', patient)).json();
    const b = (await fhir(t, beta, 'POST', '/Patient', patient)).json();
    const missing = await fhir(t, beta, 'GET', '/Patient/00000000-0000-4000-8000-000000000000');
    for (const [token, other] of [[beta, a.id], [alpha, b.id]] as const) {
      const read = await fhir(t, token, 'GET', `/Patient/${other}`);
      expect(read.statusCode).toBe(404);
      expect(read.json().issue.map((i: { code: string }) => i.code)).toEqual(missing.json().issue.map((i: { code: string }) => i.code));
      expect(read.json().issue[0].diagnostics).toBe(`Patient/${other} does not exist.`);
      expect((await fhir(t, token, 'GET', `/Patient/${other}/_history`)).statusCode).toBe(404);
      expect((await fhir(t, token, 'GET', `/Patient/${other}/_history/1`)).statusCode).toBe(404);
      expect((await fhir(t, token, 'PUT', `/Patient/${other}`, { ...patient, id: other })).statusCode).toBe(404);
      expect((await fhir(t, token, 'DELETE', `/Patient/${other}`)).statusCode).toBe(404);
    }
    const alphaSees = (await fhir(t, alpha, 'GET', '/Patient?family=tenant')).json();
    expect(alphaSees.entry.map((e: { resource: { id: string } }) => e.resource.id)).toEqual([a.id]);
    const betaHistory = (await fhir(t, beta, 'GET', '/Patient/_history')).json();
    expect(betaHistory.entry.map((e: { resource: { id: string } }) => e.resource.id)).toEqual([b.id]);
    // The conditional create of one tenant never matches the other's resource.
    expect((await fhir(t, beta, 'POST', '/Patient', patient, { 'if-none-exist': `_id=${a.id}` })).statusCode).toBe(201);

    const operator = (await fhir(t, t.operatorToken, 'GET', '/Patient?family=tenant&_count=10')).json();
    expect(operator.entry.map((e: { resource: { id: string } }) => e.resource.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect((await fhir(t, t.operatorToken, 'GET', `/Patient/${a.id}`)).statusCode).toBe(200);
  });

  it('decides each interaction by scope: product scopes, SMART v1 and v2, resource type and wildcards', async () => {
    const { id } = (await fhir(t, t.operatorToken, 'POST', '/Patient', patient)).json();
    const obs = (await fhir(t, t.operatorToken, 'POST', '/Observation', { resourceType: 'Observation', status: 'final', code: { text: 'x' } })).json();
    const reader = await apiToken(t, null, ['cms.fhir.r4.read']);
    expect((await fhir(t, reader, 'GET', `/Patient/${id}`)).statusCode).toBe(200);
    const refused = await fhir(t, reader, 'POST', '/Patient', patient);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'forbidden' }] });

    const smartV1 = await apiToken(t, null, ['system/Patient.read']);
    expect((await fhir(t, smartV1, 'GET', `/Patient/${id}`)).statusCode).toBe(200);
    expect((await fhir(t, smartV1, 'GET', '/Patient?gender=female')).statusCode).toBe(200);
    expect((await fhir(t, smartV1, 'GET', `/Observation/${obs.id}`)).statusCode).toBe(403);
    expect((await fhir(t, smartV1, 'PUT', `/Patient/${id}`, { ...patient, id })).statusCode).toBe(403);
    // patient/ scopes need a patient launch context (test/fhir-smart-patient-context.test.ts); an API token has none.
    const patientScoped = await apiToken(t, null, ['patient/Patient.read']);
    expect((await fhir(t, patientScoped, 'GET', `/Patient/${id}`)).statusCode).toBe(403);

    const readNoSearch = await apiToken(t, null, ['system/Observation.r']);
    expect((await fhir(t, readNoSearch, 'GET', `/Observation/${obs.id}`)).statusCode).toBe(200);
    expect((await fhir(t, readNoSearch, 'GET', '/Observation')).statusCode).toBe(403);

    const v2Create = await apiToken(t, null, ['system/*.c']);
    expect((await fhir(t, v2Create, 'POST', '/Observation', { resourceType: 'Observation', status: 'final', code: { text: 'y' } })).statusCode).toBe(201);
    expect((await fhir(t, v2Create, 'GET', `/Observation/${obs.id}`)).statusCode).toBe(403);
    expect((await fhir(t, v2Create, 'DELETE', `/Observation/${obs.id}`)).statusCode).toBe(403);

    const v1Write = await apiToken(t, null, ['user/Observation.write']);
    expect((await fhir(t, v1Write, 'DELETE', `/Observation/${obs.id}`)).statusCode).toBe(204);
    expect((await fhir(t, null, 'GET', `/Patient/${id}`)).statusCode).toBe(401);
  });

  it('generates the CapabilityStatement from what runs', async () => {
    const res = await fhir(t, null, 'GET', '/metadata');
    expect(res.statusCode).toBe(200);
    const cs = res.json();
    const resources = cs.rest[0].resource as { type: string; interaction: { code: string }[]; updateCreate: boolean; searchParam: { name: string; type: string }[] }[];
    expect(resources.length).toBeGreaterThanOrEqual(145);
    const patientEntry = resources.find((r) => r.type === 'Patient')!;
    expect(patientEntry.updateCreate).toBe(false);
    expect(patientEntry.interaction.map((i) => i.code)).toEqual(expect.arrayContaining(['read', 'vread', 'create', 'update', 'delete', 'search-type', 'history-instance', 'history-type']));
    expect(patientEntry.searchParam).toEqual(expect.arrayContaining([{ name: 'gender', type: 'token', definition: expect.any(String) }, expect.objectContaining({ name: 'birthdate', type: 'date' }), expect.objectContaining({ name: '_id' })]));
    expect(resources.find((r) => r.type === 'Observation')!.searchParam.map((p) => p.name)).toEqual(expect.arrayContaining(['code', 'subject', 'value-quantity', 'date']));
    expect(patientEntry).toMatchObject({ searchInclude: expect.arrayContaining(['Patient:organization']), searchRevInclude: expect.arrayContaining(['Observation:subject']) });
    expect(cs.rest[0].interaction).toEqual(expect.arrayContaining([{ code: 'transaction' }, { code: 'batch' }]));
  });

  it('publishes SMART configuration at the FHIR base and at the origin, from the authorization server', async () => {
    for (const url of ['/fhir/R4/.well-known/smart-configuration', '/.well-known/smart-configuration']) {
      const res = await t.request({ url, token: null });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toMatchObject({
        token_endpoint: `${t.config.publicUrl}/oauth/token`,
        jwks_uri: `${t.config.publicUrl}/.well-known/jwks.json`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: expect.arrayContaining(['private_key_jwt', 'client_secret_basic']),
        capabilities: expect.arrayContaining(['client-confidential-asymmetric', 'permission-v1', 'permission-v2']),
        scopes_supported: expect.arrayContaining(['cms.fhir.r4.read', 'system/*.read', 'patient/Patient.read']),
      });
    }
  });

  it('records fhir.resource.created, updated, deleted and read through the outbox, with ids and no content', async () => {
    const created = await fhir(t, alpha, 'POST', '/Patient', patient, { 'x-svc-source': 'lake' });
    const { id } = created.json();
    await fhir(t, alpha, 'PUT', `/Patient/${id}`, { ...patient, id, gender: 'male' }, { 'x-svc-source': 'lake' });
    await fhir(t, alpha, 'GET', `/Patient/${id}`);
    // The GPID link writes a new version of the Patient meanwhile; the unconditional delete still lands.
    expect((await fhir(t, alpha, 'DELETE', `/Patient/${id}`)).statusCode).toBe(204);
    expect((await fhir(t, alpha, 'POST', '/Patient', patient, { 'x-svc-source': 'nowhere' })).statusCode).toBe(400);

    const query = '{ events(first: 50, types: ["fhir.resource.created", "fhir.resource.updated", "fhir.resource.deleted", "fhir.resource.read"]) { edges { node { type partnerGpid data } } } }';
    await vi.waitFor(async () => {
      const res = await t.graphql<{ events: { edges: { node: { type: string; partnerGpid: string; data: Record<string, unknown> } }[] } }>(query, {}, alpha);
      const mine = res.data!.events.edges.map((e) => e.node).filter((n) => n.data['resource_id'] === id || n.data['interaction'] === 'read');
      const types = mine.map((n) => n.type);
      expect(types).toEqual(expect.arrayContaining(['fhir.resource.created', 'fhir.resource.updated', 'fhir.resource.deleted', 'fhir.resource.read']));
      const createdEvent = mine.find((n) => n.type === 'fhir.resource.created')!;
      expect(createdEvent).toMatchObject({ partnerGpid: alphaGpid, data: { event: 'fhir.resource.created', resource_type: 'Patient', resource_id: id, version_id: '1', source: 'lake' } });
      expect(JSON.stringify(createdEvent.data)).not.toContain('Tenant');
      expect(mine.find((n) => n.type === 'fhir.resource.read')!.data).toMatchObject({ resource_type: 'Patient', interaction: 'read', status: 200 });
    }, { timeout: PATIENCE_MS, interval: 200 });
  });

  it('coalesces fhir.resource.read per partner, type, interaction and status: the first read at once, the rest counted', async () => {
    const gpid = await registerPartner(t, 'Gamma Reads');
    const gamma = await apiToken(t, gpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    const { id } = (await fhir(t, gamma, 'POST', '/Patient', patient)).json();
    const started = Date.now();
    for (let i = 0; i < 6; i++) expect((await fhir(t, gamma, 'GET', `/Patient/${id}/_history`)).statusCode).toBe(200);
    // The first read's event, and one per window the others fall in: one or two on a fast machine,
    // more if a busy one spreads the reads over more windows.
    const windows = Math.ceil((Date.now() - started) / READ_WINDOW_MS) + 1;
    const query = '{ events(first: 50, types: ["fhir.resource.read"]) { edges { node { partnerGpid data } } } }';
    await vi.waitFor(async () => {
      const res = await t.graphql<{ events: { edges: { node: { partnerGpid: string; data: Record<string, unknown> } }[] } }>(query, {}, t.operatorToken);
      const mine = res.data!.events.edges.map((e) => e.node).filter((n) => n.partnerGpid === gpid && n.data['interaction'] === 'history');
      // Every read is counted once; the first has an event of its own, the others share one or two.
      expect(mine.reduce((sum, n) => sum + Number(n.data['count']), 0)).toBe(6);
      expect(mine.length).toBeLessThanOrEqual(1 + windows);
      expect(mine.some((n) => n.data['count'] === 1)).toBe(true);
      for (const n of mine) expect(n.data).toMatchObject({ resource_type: 'Patient', interaction: 'history', status: 200, partner_gpid: gpid });
    }, { timeout: PATIENCE_MS, interval: 200 });
  });

  it('does not scan the outbox after a read that only counted (nothing committed, nothing to publish)', async () => {
    const gpid = await registerPartner(t, 'Delta Reads');
    const delta = await apiToken(t, gpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    const started = Date.now();
    const { id } = (await fhir(t, delta, 'POST', '/Patient', patient)).json();
    expect((await fhir(t, delta, 'GET', `/Patient/${id}`)).statusCode).toBe(200);
    const before = await queryCount(t, 'fhir', 'fhir_outbox');
    for (let i = 0; i < 30; i++) expect((await fhir(t, delta, 'GET', `/Patient/${id}`)).statusCode).toBe(200);
    const elapsed = Date.now() - started;
    // Each read used to wake the relay for an empty scan (30 or more); what is left is the relay's
    // periodic sweeps while the reads ran (more of them on a busy machine), the read windows' own
    // events, and the relay of the create's and the first read's events, which may still run after
    // `before` was taken.
    const sweeps = Math.ceil(elapsed / OUTBOX_POLL_MS) + 1;
    const windowEvents = Math.ceil(elapsed / READ_WINDOW_MS) + 1;
    // The exact read counts for the certification evidence (fhir.internal.reads_counted): one commit
    // a second while reads come, and the relay's scan after it.
    const countCommits = 2 * (Math.ceil(elapsed / READ_WINDOW_MS) + 1);
    const inFlight = 2;
    expect((await queryCount(t, 'fhir', 'fhir_outbox')) - before).toBeLessThanOrEqual(sweeps + windowEvents + countCommits + inFlight);
  });
});
