import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

/**
 * The typed FHIR GraphQL fields generated from the R4 definitions: resources written over REST
 * read back through fhir<Type>(id) with nested datatypes, backbone elements, choice types and
 * references; typed search connections with paging; the same tenancy and scopes as fhirRead and
 * fhirSearch; and the gateway's operation limits bounding a deep or wide typed query.
 */
describe('typed FHIR GraphQL', () => {
  let t: TestSystem;
  let alpha: string;
  let beta: string;
  let patientId: string;
  let observationId: string;
  const family = `Typed${Date.now().toString(36)}`;

  type Errors = { extensions?: Record<string, unknown> }[] | undefined;
  const codeOf = (errors: Errors): unknown => errors?.[0]?.extensions?.['code'];

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    alpha = await apiToken(t, await registerPartner(t, 'Typed Alpha'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    beta = await apiToken(t, await registerPartner(t, 'Typed Beta'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    const patient = await fhir(t, alpha, 'POST', '/Patient', {
      resourceType: 'Patient',
      gender: 'female',
      birthDate: '1980-02-03',
      deceasedBoolean: false,
      name: [{ family, given: ['Ada', 'B'], period: { start: '2001-01-01' } }],
      contact: [{ name: { family: 'Contact' }, telecom: [{ system: 'phone', value: '+1 555 0100' }], relationship: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0131', code: 'N' }] }] }],
      extension: [{ url: 'http://example.org/ext', valueString: 'kept' }],
    });
    expect(patient.statusCode).toBe(201);
    patientId = patient.json().id;
    const observation = await fhir(t, alpha, 'POST', '/Observation', {
      resourceType: 'Observation',
      status: 'final',
      code: { coding: [{ system: 'http://loinc.org', code: '29463-7', display: 'Body weight' }] },
      subject: { reference: `Patient/${patientId}`, display: 'Ada' },
      valueQuantity: { value: 72.5, unit: 'kg', system: 'http://unitsofmeasure.org', code: 'kg' },
    });
    expect(observation.statusCode).toBe(201);
    observationId = observation.json().id;
    for (const given of ['C', 'D']) {
      expect((await fhir(t, alpha, 'POST', '/Patient', { resourceType: 'Patient', name: [{ family, given: [given] }] })).statusCode).toBe(201);
    }
  });
  afterAll(() => t?.close());

  it('reads a resource through typed fields: nested datatypes, backbone elements, a choice type, a reference and the whole resource', async () => {
    const res = await t.graphql<{ fhirPatient: Record<string, unknown>; fhirObservation: Record<string, unknown> }>(
      `query($p: ID!, $o: ID!) {
        fhirPatient(id: $p) {
          id gender birthDate deceasedBoolean deceasedDateTime
          name { family given period { start } }
          contact { name { family } telecom { system value } relationship { coding { code } } }
          meta { versionId }
          extension
          resource
        }
        fhirObservation(id: $o) {
          id status
          code { coding { system code display } }
          subject { reference display }
          valueQuantity { value unit }
          valueString
        }
      }`,
      { p: patientId, o: observationId },
      alpha,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.fhirPatient).toMatchObject({
      id: patientId,
      gender: 'female',
      birthDate: '1980-02-03',
      deceasedBoolean: false,
      deceasedDateTime: null,
      name: [{ family, given: ['Ada', 'B'], period: { start: '2001-01-01' } }],
      contact: [{ name: { family: 'Contact' }, telecom: [{ system: 'phone', value: '+1 555 0100' }], relationship: [{ coding: [{ code: 'N' }] }] }],
      meta: { versionId: '1' },
      extension: [{ url: 'http://example.org/ext', valueString: 'kept' }],
    });
    const whole = (await fhir(t, alpha, 'GET', `/Patient/${patientId}`)).json();
    expect(res.data!.fhirPatient['resource']).toEqual(whole);
    expect(res.data!.fhirObservation).toEqual({
      id: observationId,
      status: 'final',
      code: { coding: [{ system: 'http://loinc.org', code: '29463-7', display: 'Body weight' }] },
      subject: { reference: `Patient/${patientId}`, display: 'Ada' },
      valueQuantity: { value: 72.5, unit: 'kg' },
      valueString: null,
    });
  });

  it('pages a typed search with first and after, and refuses paging parameters inside params', async () => {
    const query = 'query($q: String, $a: String) { fhirPatients(params: $q, first: 2, after: $a) { edges { cursor node { id name { given } } } pageInfo { hasNextPage endCursor } } }';
    type Conn = { fhirPatients: { edges: { cursor: string; node: { id: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } };
    const first = await t.graphql<Conn>(query, { q: `family=${family}` }, alpha);
    expect(first.errors).toBeUndefined();
    expect(first.data!.fhirPatients.edges).toHaveLength(2);
    expect(first.data!.fhirPatients.pageInfo.hasNextPage).toBe(true);
    const second = await t.graphql<Conn>(query, { q: `family=${family}`, a: first.data!.fhirPatients.pageInfo.endCursor }, alpha);
    expect(second.errors).toBeUndefined();
    expect(second.data!.fhirPatients.edges).toHaveLength(1);
    expect(second.data!.fhirPatients.pageInfo.hasNextPage).toBe(false);
    const ids = [...first.data!.fhirPatients.edges, ...second.data!.fhirPatients.edges].map((e) => e.node.id);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toContain(patientId);

    const counted = await t.graphql(query, { q: `family=${family}&_count=50` }, alpha);
    expect(codeOf(counted.errors)).toBe('BAD_REQUEST');
    const forged = await t.graphql(query, { q: `family=${family}`, a: 'not a cursor!' }, alpha);
    expect(codeOf(forged.errors)).toBe('BAD_REQUEST');
    const garbled = await t.graphql(query, { q: `family=${family}`, a: Buffer.from('[1,"",[],"x","y","n"]').toString('base64url') }, alpha);
    expect(codeOf(garbled.errors)).toBe('BAD_REQUEST');
    const otherSort = await t.graphql(query, { q: `family=${family}&_sort=birthdate`, a: first.data!.fhirPatients.pageInfo.endCursor }, alpha);
    expect(codeOf(otherSort.errors)).toBe('BAD_REQUEST');
    // Edge cursors are keyset positions: paging after the first edge yields the second one next.
    const afterFirst = await t.graphql<Conn>(query, { q: `family=${family}`, a: first.data!.fhirPatients.edges[0]!.cursor }, alpha);
    expect(afterFirst.data!.fhirPatients.edges[0]!.node.id).toBe(first.data!.fhirPatients.edges[1]!.node.id);
    const tooLarge = await t.graphql(`{ fhirPatients(first: 101) { edges { node { id } } } }`, {}, alpha);
    expect(codeOf(tooLarge.errors)).toBe('PAGE_SIZE_TOO_LARGE');
  });

  it("answers another partner's resource like a missing one (null), and searches only the caller's own", async () => {
    const read = 'query($id: ID!) { fhirPatient(id: $id) { id resource } }';
    const other = await t.graphql<{ fhirPatient: unknown }>(read, { id: patientId }, beta);
    const missing = await t.graphql<{ fhirPatient: unknown }>(read, { id: '00000000-0000-4000-8000-000000000000' }, beta);
    expect(other.errors).toBeUndefined();
    expect(other.data!.fhirPatient).toBeNull();
    expect(missing.errors).toBeUndefined();
    expect(missing.data!.fhirPatient).toBeNull();
    const search = await t.graphql<{ fhirPatients: { edges: unknown[] } }>('query($q: String) { fhirPatients(params: $q) { edges { node { id } } } }', { q: `family=${family}` }, beta);
    expect(search.errors).toBeUndefined();
    expect(search.data!.fhirPatients.edges).toEqual([]);
    // The operator sees every partner's resources, as over REST.
    const operator = await t.graphql<{ fhirPatient: { id: string } }>(read, { id: patientId });
    expect(operator.data!.fhirPatient.id).toBe(patientId);
  });

  it('decides each typed field by the same scopes as fhirRead and fhirSearch', async () => {
    // Resources and tokens of the operator's own partner, as in the REST scope tests.
    const own = (await fhir(t, t.operatorToken, 'POST', '/Observation', { resourceType: 'Observation', status: 'final', code: { text: 'scoped' } })).json();
    const ownPatient = (await fhir(t, t.operatorToken, 'POST', '/Patient', { resourceType: 'Patient', gender: 'other' })).json();
    const observationReader = await apiToken(t, null, ['system/Observation.r']);
    const obs = await t.graphql<{ fhirObservation: { id: string; code: { text: string } } }>('query($id: ID!) { fhirObservation(id: $id) { id code { text } } }', { id: own.id }, observationReader);
    expect(obs.errors).toBeUndefined();
    expect(obs.data!.fhirObservation).toEqual({ id: own.id, code: { text: 'scoped' } });
    const patient = await t.graphql('query($id: ID!) { fhirPatient(id: $id) { id } }', { id: ownPatient.id }, observationReader);
    const generic = await t.graphql('query($id: ID!) { fhirRead(resourceType: "Patient", id: $id) { status } }', { id: ownPatient.id }, observationReader);
    expect(codeOf(patient.errors)).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(patient.errors)).toBe(codeOf(generic.errors));
    const search = await t.graphql('{ fhirObservations { edges { node { id } } } }', {}, observationReader);
    const genericSearch = await t.graphql('{ fhirSearch(resourceType: "Observation") { status } }', {}, observationReader);
    expect(codeOf(search.errors)).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(search.errors)).toBe(codeOf(genericSearch.errors));
    const smartV1 = await apiToken(t, null, ['system/Patient.read']);
    const allowed = await t.graphql<{ fhirPatient: { id: string } }>('query($id: ID!) { fhirPatient(id: $id) { id } }', { id: ownPatient.id }, smartV1);
    expect(allowed.data!.fhirPatient.id).toBe(ownPatient.id);
    // patient/ scopes without a patient launch context are refused, as on REST.
    const patientScoped = await apiToken(t, null, ['patient/Patient.read']);
    const refused = await t.graphql('query($id: ID!) { fhirPatient(id: $id) { id } }', { id: ownPatient.id }, patientScoped);
    expect(codeOf(refused.errors)).toBe('FORBIDDEN');
    const anonymous = await t.graphql('query($id: ID!) { fhirPatient(id: $id) { id } }', { id: patientId }, null);
    expect(codeOf(anonymous.errors)).toBe('UNAUTHENTICATED');
  });

  it('keeps deep and wide typed queries within the operation limits', async () => {
    // Reference.identifier.assigner is recursive: depth is bounded by the gateway, not the schema.
    let nested = 'reference';
    for (let i = 0; i < 6; i++) nested = `reference identifier { assigner { ${nested} } }`;
    const deep = await t.graphql(`query($id: ID!) { fhirObservation(id: $id) { subject { ${nested} } } }`, { id: observationId }, alpha);
    expect(codeOf(deep.errors)).toBe('OPERATION_TOO_DEEP');
    // Three nested lists under a page of 100 multiply past a partner's cost budget.
    const wide = await t.graphql('{ fhirPatients(first: 100) { edges { node { contact { relationship { coding { system code display } } } } } } }', {}, alpha);
    expect(codeOf(wide.errors)).toBe('OPERATION_TOO_COSTLY');
    // A realistic portal page stays well inside both.
    const page = await t.graphql('{ fhirPatients(first: 20) { edges { node { id gender name { family given } } } pageInfo { hasNextPage } } }', {}, alpha);
    expect(page.errors).toBeUndefined();
  });

  it('answers every field of one query that reads and searches eight types side by side, each read committing its own event', async () => {
    const bodies: Record<string, object> = {
      Patient: { gender: 'female' },
      Observation: { status: 'final', code: { text: 'weight' } },
      Condition: { subject: { display: 'someone' } },
      Encounter: { status: 'planned', class: { code: 'AMB' } },
      Practitioner: { active: true },
      Organization: { name: 'Clinic' },
      Location: { name: 'Ward' },
      Device: { status: 'active' },
    };
    const types = Object.keys(bodies);
    // A fresh partner per round opens fresh read-event windows, so every field commits an event.
    for (let round = 0; round < 3; round += 1) {
      const token = await apiToken(t, await registerPartner(t, `Typed Side ${round}`), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
      const ids: string[] = [];
      for (const type of types) ids.push((await fhir(t, token, 'POST', `/${type}`, { resourceType: type, ...bodies[type] })).json().id);
      const reads = types.map((type, k) => `r${k}: fhirRead(resourceType: "${type}", id: "${ids[k]}") { status }`).join(' ');
      const searches = types.map((type, k) => `s${k}: fhirSearch(resourceType: "${type}", query: "_count=5&_total=accurate") { status }`).join(' ');
      const res = await t.graphql<Record<string, { status: number }>>(`{ ${reads} ${searches} }`, {}, token);
      expect(res.errors).toBeUndefined();
      expect(Object.values(res.data!).map((r) => r.status)).toEqual(Array(types.length * 2).fill(200));
    }
  });
});
