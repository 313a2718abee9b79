import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeJwt } from 'jose';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

interface Bundle {
  total?: number;
  entry?: { resource: { resourceType: string; id: string }; search?: { mode: string } }[];
}

const codeOf = (errors: { extensions?: Record<string, unknown> }[] | undefined) => errors?.[0]?.extensions?.['code'];
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/**
 * SMART patient launch context: an OAuth client registered with a patient gets tokens bound to that
 * FHIR Patient (`patient` claim, `patient` in the token response); the FHIR server then narrows every
 * access of the credential to that patient's compartment (REST and GraphQL alike), and answers
 * everything outside it as if it did not exist. patient/ scopes without a context are refused.
 */
describe('SMART patient/ scopes narrowed to the patient launch context', () => {
  let t: TestSystem;
  let gpid: string;
  let writer: string;
  const ids: Record<string, string> = {};
  const ref = (key: string, type: string) => `${type}/${ids[key]!}`;

  /** Register a client_secret_post client for the partner (as the operator) and get a token. */
  async function patientClient(scope: string, patient: string | null, tokenScope?: string): Promise<{ token: string; response: Record<string, unknown>; registration: Record<string, unknown> }> {
    const registered = await t.request({ method: 'POST', url: '/cms/oauth/register', body: { client_name: `patient app ${scope}`.slice(0, 60), scope, token_endpoint_auth_method: 'client_secret_post', partner_gpid: gpid, ...(patient === null ? {} : { patient }) } });
    expect(registered.statusCode, registered.body).toBe(201);
    const client = registered.json();
    const res = await t.request({ method: 'POST', url: '/oauth/token', token: null, headers: FORM, body: form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, ...(tokenScope ? { scope: tokenScope } : {}) }) });
    expect(res.statusCode, res.body).toBe(200);
    return { token: res.json().access_token, response: res.json(), registration: client };
  }

  const entries = async (token: string, query: string): Promise<string[]> => {
    const res = await fhir(t, token, 'GET', query);
    expect(res.statusCode, res.body).toBe(200);
    return ((res.json() as Bundle).entry ?? []).map((e) => `${e.search?.mode ?? 'match'} ${e.resource.resourceType}/${e.resource.id}`).sort();
  };

  let reader: string;

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_FHIR_EXPORT_PAGE_SIZE: '2' });
    gpid = await registerPartner(t, 'Patient App Vendor');
    const held = (await t.graphql<{ partner: { grantedScopes: string[] } }>('query($g: ID!) { partner(gpid: $g) { grantedScopes } }', { g: gpid })).data!.partner.grantedScopes;
    const widened = await t.request({ method: 'PUT', url: `/cms/partners/${gpid}/scopes`, body: { scopes: [...held, 'system/*.read', 'patient/*.read', 'patient/*.write'] } });
    expect(widened.statusCode, widened.body).toBe(200);
    writer = await apiToken(t, gpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    const create = async (key: string, resource: Record<string, unknown>) => {
      const res = await fhir(t, writer, 'POST', `/${resource['resourceType'] as string}`, resource);
      expect(res.statusCode, res.body).toBe(201);
      ids[key] = res.json().id;
    };
    await create('pr', { resourceType: 'Practitioner', name: [{ family: 'Outside' }] });
    await create('p1', { resourceType: 'Patient', name: [{ family: 'Inside' }], gender: 'female' });
    await create('p2', { resourceType: 'Patient', name: [{ family: 'Elsewhere' }], gender: 'female' });
    await create('p3', { resourceType: 'Patient', name: [{ family: 'Linked' }], link: [{ other: { reference: ref('p1', 'Patient') }, type: 'seealso' }] });
    await create('o1', { resourceType: 'Observation', status: 'final', code: { text: 'mine' }, subject: { reference: ref('p1', 'Patient') }, performer: [{ reference: ref('pr', 'Practitioner') }] });
    await create('o2', { resourceType: 'Observation', status: 'final', code: { text: 'theirs' }, subject: { reference: ref('p2', 'Patient') } });
    await create('e1', { resourceType: 'Encounter', status: 'finished', class: { code: 'AMB' }, subject: { reference: ref('p1', 'Patient') } });
    reader = (await patientClient('patient/*.read patient/Observation.cu', ids['p1']!)).token;
  });
  afterAll(() => t?.close());

  it('binds the client and its tokens to the patient: registration, token response, JWT claim, launch/patient', async () => {
    const { response, registration, token } = await patientClient('patient/*.rs', ids['p1']!, 'patient/*.rs launch/patient');
    expect(registration['patient']).toBe(ids['p1']);
    expect(response).toMatchObject({ token_type: 'Bearer', patient: ids['p1'], scope: 'patient/*.rs launch/patient' });
    expect(decodeJwt(token)['patient']).toBe(ids['p1']);

    // A client without a patient context has no `patient`, and may not ask for launch/patient.
    const plain = await patientClient('cms.fhir.r4.read', null);
    expect(plain.response['patient']).toBeUndefined();
    expect(decodeJwt(plain.token)['patient']).toBeUndefined();
    const refused = await t.request({
      method: 'POST',
      url: '/oauth/token',
      token: null,
      headers: FORM,
      body: form({ grant_type: 'client_credentials', client_id: String(plain.registration['client_id']), client_secret: String(plain.registration['client_secret']), scope: 'cms.fhir.r4.read launch/patient' }),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe('invalid_scope');

    const bad = await t.request({ method: 'POST', url: '/cms/oauth/register', body: { client_name: 'bad', scope: 'patient/*.rs', partner_gpid: gpid, patient: 'Patient/1' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ error: 'invalid_client_metadata' });
    // Partner-wide products would reach past the patient: such a client holds only what is narrowed to it.
    const wide = await t.request({ method: 'POST', url: '/cms/oauth/register', body: { client_name: 'wide', scope: 'patient/*.rs identity.match', partner_gpid: gpid, patient: ids['p1'] } });
    expect(wide.statusCode).toBe(422);
    expect(wide.json()).toMatchObject({ error: 'invalid_client_metadata' });
    expect(wide.json().error_description).toContain('identity.match');

    const smart = (await t.request({ url: '/fhir/R4/.well-known/smart-configuration', token: null })).json();
    expect(smart.capabilities).toEqual(expect.arrayContaining(['permission-patient', 'context-standalone-patient']));
    expect(smart.scopes_supported).toContain('launch/patient');
  });

  it('reads, vreads and histories only the compartment; everything else is the 404 of a missing resource', async () => {
    for (const key of ['p1', 'o1', 'e1']) {
      const type = key === 'p1' ? 'Patient' : key === 'o1' ? 'Observation' : 'Encounter';
      expect((await fhir(t, reader, 'GET', `/${ref(key, type)}`)).statusCode, key).toBe(200);
      expect((await fhir(t, reader, 'GET', `/${ref(key, type)}/_history/1`)).statusCode, key).toBe(200);
      expect((await fhir(t, reader, 'GET', `/${ref(key, type)}/_history`)).statusCode, key).toBe(200);
    }
    const missing = await fhir(t, reader, 'GET', '/Observation/00000000-0000-4000-8000-000000000000');
    for (const [key, type] of [['p2', 'Patient'], ['o2', 'Observation'], ['pr', 'Practitioner']] as const) {
      const res = await fhir(t, reader, 'GET', `/${ref(key, type)}`);
      expect(res.statusCode, key).toBe(404);
      expect(res.json().issue.map((i: { code: string }) => i.code)).toEqual(missing.json().issue.map((i: { code: string }) => i.code));
      expect(res.json().issue[0].diagnostics).toBe(`${type}/${ids[key]} does not exist.`);
      expect((await fhir(t, reader, 'GET', `/${ref(key, type)}/_history/1`)).statusCode, key).toBe(404);
      expect((await fhir(t, reader, 'GET', `/${ref(key, type)}/_history`)).statusCode, key).toBe(404);
    }
    const typeHistory = (await fhir(t, reader, 'GET', '/Observation/_history')).json() as Bundle;
    expect(typeHistory.entry!.map((e) => e.resource.id)).toEqual([ids['o1']]);
    // The same resources stay visible to the partner's own wide credential.
    expect((await fhir(t, writer, 'GET', `/${ref('o2', 'Observation')}`)).statusCode).toBe(200);
  });

  it('searches only the compartment: matches, totals, _include, _revinclude, chains and _has', async () => {
    expect(await entries(reader, '/Observation')).toEqual([`match Observation/${ids['o1']}`]);
    expect(((await fhir(t, reader, 'GET', '/Observation?_total=accurate')).json() as Bundle).total).toBe(1);
    expect(await entries(reader, '/Patient?gender=female')).toEqual([`match Patient/${ids['p1']}`]);
    // A Patient whose link names the patient is in its compartment (CompartmentDefinition/patient: Patient.link).
    expect(await entries(reader, '/Patient')).toEqual([`match Patient/${ids['p1']}`, `match Patient/${ids['p3']}`].sort());
    expect(await entries(reader, `/Observation?subject=${ref('p2', 'Patient')}`)).toEqual([]);
    expect(await entries(reader, `/Patient?_id=${ids['p2']}`)).toEqual([]);
    expect(await entries(reader, '/Practitioner')).toEqual([]);
    // The performer (a Practitioner) is outside the compartment: not included.
    expect(await entries(reader, '/Observation?_include=Observation:performer&_include=Observation:subject')).toEqual([`include Patient/${ids['p1']}`, `match Observation/${ids['o1']}`]);
    expect(await entries(reader, `/Patient?_id=${ids['p1']}&_revinclude=Observation:subject&_revinclude=Encounter:subject`)).toEqual(
      [`include Encounter/${ids['e1']}`, `include Observation/${ids['o1']}`, `match Patient/${ids['p1']}`].sort(),
    );
    expect(await entries(reader, '/Observation?subject:Patient.name=elsewhere')).toEqual([]);
    expect(await entries(reader, '/Observation?subject:Patient.name=inside')).toEqual([`match Observation/${ids['o1']}`]);
    expect(await entries(reader, '/Patient?_has:Observation:subject:code:text=theirs')).toEqual([]);
    expect(await entries(reader, '/Patient?_has:Observation:subject:code:text=mine')).toEqual([`match Patient/${ids['p1']}`]);
    // The wide credential of the same partner sees both patients.
    expect((await entries(writer, '/Patient?gender=female')).length).toBe(2);
  });

  it('writes only inside the compartment, and never reaches anything outside it', async () => {
    const inside = await fhir(t, reader, 'POST', '/Observation', { resourceType: 'Observation', status: 'final', code: { text: 'new mine' }, subject: { reference: ref('p1', 'Patient') } });
    expect(inside.statusCode, inside.body).toBe(201);
    const outside = await fhir(t, reader, 'POST', '/Observation', { resourceType: 'Observation', status: 'final', code: { text: 'new theirs' }, subject: { reference: ref('p2', 'Patient') } });
    expect(outside.statusCode).toBe(403);
    expect(outside.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'forbidden' }] });
    const id = inside.json().id as string;
    // Moving a resource out of the compartment is refused; one outside is not there to update or delete.
    const moved = await fhir(t, reader, 'PUT', `/Observation/${id}`, { resourceType: 'Observation', id, status: 'final', code: { text: 'moved' }, subject: { reference: ref('p2', 'Patient') } });
    expect(moved.statusCode).toBe(403);
    const o2 = { resourceType: 'Observation', id: ids['o2'], status: 'amended', code: { text: 'theirs' }, subject: { reference: ref('p1', 'Patient') } };
    expect((await fhir(t, reader, 'PUT', `/Observation/${ids['o2']}`, o2)).statusCode).toBe(404);
    const updated = await fhir(t, reader, 'PUT', `/Observation/${id}`, { resourceType: 'Observation', id, status: 'amended', code: { text: 'new mine' }, subject: { reference: ref('p1', 'Patient') } });
    expect(updated.statusCode, updated.body).toBe(200);
    // Conditional writes see only the compartment: the other patient's Observation is not matched.
    const conditional = await fhir(t, reader, 'PUT', `/Observation?_id=${ids['o2']}`, { resourceType: 'Observation', status: 'final', code: { text: 'cond' }, subject: { reference: ref('p1', 'Patient') } });
    expect(conditional.statusCode, conditional.body).toBe(201);
    expect(conditional.json().id).not.toBe(ids['o2']);
    expect((await fhir(t, writer, 'GET', `/Observation/${ids['o2']}`)).json().status).toBe('final');

    // A patient context narrows whatever the scopes: a wide bound client runs transactions inside it only.
    const wide = (await patientClient('cms.fhir.r4.read cms.fhir.rest.write cms.fhir.bundle.push', ids['p1']!)).token;
    const bundle = (entry: Record<string, unknown>[]) => ({ resourceType: 'Bundle', type: 'transaction', entry });
    const read = await fhir(t, wide, 'POST', '', bundle([{ request: { method: 'GET', url: `Observation?code:text=theirs` } }, { request: { method: 'GET', url: 'Patient?gender=female' } }]));
    expect(read.statusCode, read.body).toBe(200);
    const [obs, patients] = read.json().entry.map((e: { resource: Bundle }) => (e.resource.entry ?? []).map((x) => x.resource.id));
    expect(obs).toEqual([]);
    expect(patients).toEqual([ids['p1']]);
    const mixed = await fhir(t, wide, 'POST', '', bundle([
      { fullUrl: 'urn:uuid:1d1f3c3e-0000-4000-8000-000000000001', resource: { resourceType: 'Observation', status: 'final', code: { text: 'tx mine' }, subject: { reference: ref('p1', 'Patient') } }, request: { method: 'POST', url: 'Observation' } },
      { resource: { resourceType: 'Observation', status: 'final', code: { text: 'tx theirs' }, subject: { reference: ref('p2', 'Patient') } }, request: { method: 'POST', url: 'Observation' } },
    ]));
    expect(mixed.statusCode).toBe(403);
    expect(await entries(writer, '/Observation?code:text=tx')).toEqual([]);
    // An asynchronous submission keeps the context: the job runs narrowed to the same patient.
    const submitted = await fhir(t, wide, 'POST', '', bundle([{ resource: { resourceType: 'Observation', status: 'final', code: { text: 'tx async theirs' }, subject: { reference: ref('p2', 'Patient') } }, request: { method: 'POST', url: 'Observation' } }]), { prefer: 'respond-async' });
    expect(submitted.statusCode, submitted.body).toBe(202);
    const syncPath = new URL(String(submitted.headers['content-location'])).pathname;
    await vi.waitFor(async () => expect((await t.request({ url: syncPath, token: wide })).statusCode).toBe(403), { timeout: 30_000, interval: 100 });
    expect(await entries(writer, '/Observation?code:text=tx')).toEqual([]);
    expect((await fhir(t, wide, 'DELETE', `/Observation/${ids['o2']}`)).statusCode).toBe(404);
    expect((await fhir(t, wide, 'POST', '/Patient', { resourceType: 'Patient', name: [{ family: 'New' }] })).statusCode).toBe(403);
  });

  it('answers a deleted resource outside the compartment with 404, and one inside it with 410', async () => {
    const make = async (subject: string) => (await fhir(t, writer, 'POST', '/Observation', { resourceType: 'Observation', status: 'final', code: { text: 'to delete' }, subject: { reference: subject } })).json().id as string;
    const inside = await make(ref('p1', 'Patient'));
    const outside = await make(ref('p2', 'Patient'));
    for (const id of [inside, outside]) expect((await fhir(t, writer, 'DELETE', `/Observation/${id}`)).statusCode).toBe(204);
    expect((await fhir(t, reader, 'GET', `/Observation/${outside}`)).statusCode).toBe(404);
    expect((await fhir(t, reader, 'GET', `/Observation/${outside}/_history`)).statusCode).toBe(404);
    expect((await fhir(t, reader, 'GET', `/Observation/${inside}`)).statusCode).toBe(410);
    // The partner-wide credential sees both deletions.
    for (const id of [inside, outside]) expect((await fhir(t, writer, 'GET', `/Observation/${id}`)).statusCode).toBe(410);
  });

  it('refuses patient/ scopes without a patient context instead of acting as system/', async () => {
    const noContext = await apiToken(t, gpid, ['patient/*.read']);
    for (const path of [`/${ref('p1', 'Patient')}`, '/Observation']) {
      const res = await fhir(t, noContext, 'GET', path);
      expect(res.statusCode, path).toBe(403);
      expect(res.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'forbidden', diagnostics: expect.stringContaining('patient context') }] });
    }
    const gql = await t.graphql('query($id: ID!) { fhirRead(resourceType: "Patient", id: $id) { status } }', { id: ids['p1'] }, noContext);
    expect(codeOf(gql.errors)).toBe('FORBIDDEN');
    // system/ and product scopes keep their whole view.
    const system = await apiToken(t, gpid, ['system/*.read']);
    expect((await fhir(t, system, 'GET', `/${ref('p2', 'Patient')}`)).statusCode).toBe(200);
  });

  it('gives GraphQL the same compartment: generic and typed fields', async () => {
    const read = await t.graphql<{ fhirRead: { status: number } }>('query($id: ID!) { fhirRead(resourceType: "Observation", id: $id) { status } }', { id: ids['o1'] }, reader);
    expect(read.data!.fhirRead.status).toBe(200);
    const hidden = await t.graphql('query($id: ID!) { fhirRead(resourceType: "Observation", id: $id) { status } }', { id: ids['o2'] }, reader);
    expect(codeOf(hidden.errors)).toBe('NOT_FOUND');
    const typed = await t.graphql<{ mine: { id: string } | null; theirs: { id: string } | null }>('query($a: ID!, $b: ID!) { mine: fhirPatient(id: $a) { id } theirs: fhirPatient(id: $b) { id } }', { a: ids['p1'], b: ids['p2'] }, reader);
    expect(typed.errors).toBeUndefined();
    expect(typed.data).toEqual({ mine: { id: ids['p1'] }, theirs: null });
    const search = await t.graphql<{ fhirObservations: { edges: { node: { id: string } }[] } }>('query($p: String!) { fhirObservations(params: $p) { edges { node { id } } } }', { p: `_id=${ids['o1']},${ids['o2']}` }, reader);
    expect(search.errors).toBeUndefined();
    expect(search.data!.fhirObservations.edges.map((e) => e.node.id)).toEqual([ids['o1']]);
    const generic = await t.graphql<{ fhirSearch: { resource: Bundle } }>('{ fhirSearch(resourceType: "Encounter") { resource } }', {}, reader);
    expect(generic.data!.fhirSearch.resource.entry!.map((e) => e.resource.id)).toEqual([ids['e1']]);
    const write = await t.graphql('mutation($r: JSONObject!) { fhirCreate(resourceType: "Observation", resource: $r) { status } }', { r: { resourceType: 'Observation', status: 'final', code: { text: 'gql theirs' }, subject: { reference: ref('p2', 'Patient') } } }, reader);
    expect(codeOf(write.errors)).toBe('FORBIDDEN');
  });

  it('exports at Patient level only, and only the compartment of the patient', async () => {
    const exporter = (await patientClient('system/*.read', ids['p1']!)).token;
    const async = { prefer: 'respond-async' };
    expect((await fhir(t, exporter, 'GET', '/$export', undefined, async)).statusCode).toBe(403);
    const kickoff = await fhir(t, exporter, 'GET', '/Patient/$export?_type=Patient,Observation,Encounter', undefined, async);
    expect(kickoff.statusCode, kickoff.body).toBe(202);
    const statusPath = new URL(String(kickoff.headers['content-location'])).pathname;
    let manifest: { output: { type: string; url: string }[] } | undefined;
    await vi.waitFor(
      async () => {
        const res = await t.request({ url: statusPath, token: exporter });
        expect(res.statusCode, res.body).toBe(200);
        manifest = res.json();
      },
      { timeout: 30_000, interval: 50 },
    );
    const exported: string[] = [];
    for (const file of manifest!.output) {
      const res = await t.request({ url: new URL(file.url).pathname, token: exporter });
      for (const line of res.body.split('\n').filter(Boolean)) {
        const r = JSON.parse(line) as { resourceType: string; id: string };
        exported.push(`${r.resourceType}/${r.id}`);
      }
    }
    expect(exported).toContain(ref('p1', 'Patient'));
    expect(exported).toContain(ref('o1', 'Observation'));
    expect(exported).toContain(ref('e1', 'Encounter'));
    expect(exported).not.toContain(ref('p2', 'Patient'));
    expect(exported).not.toContain(ref('o2', 'Observation'));

    // The partner's own system-level export is not reachable from a patient-context credential.
    const wide = await apiToken(t, gpid, ['system/*.read']);
    const system = await fhir(t, wide, 'GET', '/$export?_type=Patient', undefined, async);
    expect(system.statusCode, system.body).toBe(202);
    const systemStatus = new URL(String(system.headers['content-location'])).pathname;
    await vi.waitFor(async () => expect((await t.request({ url: systemStatus, token: wide })).statusCode).toBe(200), { timeout: 30_000, interval: 50 });
    const systemFile = ((await t.request({ url: systemStatus, token: wide })).json() as { output: { url: string }[] }).output[0]!.url;
    expect((await t.request({ url: systemStatus, token: exporter })).statusCode).toBe(404);
    expect((await t.request({ url: new URL(systemFile).pathname, token: exporter })).statusCode).toBe(404);
    expect((await t.request({ url: new URL(systemFile).pathname, token: wide })).statusCode).toBe(200);
  });
});
