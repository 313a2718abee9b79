import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

/**
 * The FHIR REST interactions through the facade and the gateway, on the real database: create,
 * read, vread, update with versions and If-Match, conditional create, soft delete, history,
 * Prefer: return, and validation errors that name the element.
 */
describe('FHIR R4 create, read, update, delete and history', () => {
  let t: TestSystem;
  let writer: string;
  let gpid: string;

  beforeAll(async () => {
    // Many requests a second: the burst limit is not what this file tests.
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    gpid = await registerPartner(t, 'Harbor Clinic');
    writer = await apiToken(t, gpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
  });
  afterAll(() => t?.close());

  const patient = { resourceType: 'Patient', active: true, gender: 'female', birthDate: '1984-03-02', name: [{ family: 'Okafor', given: ['Adaeze'] }] };

  it('creates with a server-assigned id, 201, Location and ETag, and reads it back', async () => {
    // Without X-Svc-Source: with it, the GPID link soon writes version 2 (see test/fhir-identity-link.test.ts).
    const created = await fhir(t, writer, 'POST', '/Patient', { ...patient, id: 'client-chosen' });
    expect(created.statusCode).toBe(201);
    expect(created.headers['content-type']).toMatch(/^application\/fhir\+json/);
    const body = created.json();
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.meta).toMatchObject({ versionId: '1', lastUpdated: expect.stringMatching(/Z$/) });
    expect(created.headers['etag']).toBe('W/"1"');
    expect(created.headers['location']).toBe(`${t.config.publicUrl}/fhir/R4/Patient/${body.id}/_history/1`);

    const read = await fhir(t, writer, 'GET', `/Patient/${body.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.headers['etag']).toBe('W/"1"');
    expect(read.headers['last-modified']).toBe(new Date(body.meta.lastUpdated).toUTCString());
    expect(read.json()).toEqual(body);
  });

  it('assigns time-ordered UUIDv7 ids: each create, and each entry of a transaction, sorts after the ones before', async () => {
    const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const first = (await fhir(t, writer, 'POST', '/Patient', patient)).json().id as string;
    const second = (await fhir(t, writer, 'POST', '/Patient', patient)).json().id as string;
    const entry = { resource: { resourceType: 'Observation', status: 'final', code: { text: 'pulse' } }, request: { method: 'POST', url: 'Observation' } };
    const pusher = await apiToken(t, gpid, ['cms.fhir.rest.write', 'cms.fhir.bundle.push']);
    const transaction = await fhir(t, pusher, 'POST', '', { resourceType: 'Bundle', type: 'transaction', entry: [entry, entry, entry] });
    expect(transaction.statusCode).toBe(200);
    const inBundle = (transaction.json().entry as { response: { location: string } }[]).map((e) => e.response.location.split('/')[1]!);
    const ids = [first, second, ...inBundle];
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('answers a conditional read with 304 while the resource is unchanged (If-None-Match, If-Modified-Since)', async () => {
    const created = (await fhir(t, writer, 'POST', '/Patient', patient)).json();
    const url = `/Patient/${created.id}`;
    const lastModified = new Date(created.meta.lastUpdated).toUTCString();
    const same = await fhir(t, writer, 'GET', url, undefined, { 'if-none-match': 'W/"1"' });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    expect(same.headers['etag']).toBe('W/"1"');
    expect((await fhir(t, writer, 'GET', url, undefined, { 'if-none-match': '"7", W/"1"' })).statusCode).toBe(304);
    expect((await fhir(t, writer, 'GET', url, undefined, { 'if-none-match': '*' })).statusCode).toBe(304);
    expect((await fhir(t, writer, 'GET', url, undefined, { 'if-modified-since': lastModified })).statusCode).toBe(304);
    const later = new Date(Date.parse(created.meta.lastUpdated) + 3_600_000).toUTCString();
    expect((await fhir(t, writer, 'GET', url, undefined, { 'if-modified-since': later })).statusCode).toBe(304);
    const earlier = new Date(Date.parse(created.meta.lastUpdated) - 3_600_000).toUTCString();
    expect((await fhir(t, writer, 'GET', url, undefined, { 'if-modified-since': earlier })).statusCode).toBe(200);
    expect((await fhir(t, writer, 'GET', url, undefined, { 'if-modified-since': 'not a date' })).statusCode).toBe(200);
    // If-None-Match decides when both are sent.
    expect((await fhir(t, writer, 'GET', url, undefined, { 'if-none-match': 'W/"2"', 'if-modified-since': later })).statusCode).toBe(200);

    await fhir(t, writer, 'PUT', url, { ...created, active: false });
    const changed = await fhir(t, writer, 'GET', url, undefined, { 'if-none-match': 'W/"1"' });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers['etag']).toBe('W/"2"');
    expect(changed.json().active).toBe(false);
    // A missing or another partner's resource is still a 404, whatever the condition.
    const other = await apiToken(t, await registerPartner(t, 'Other Harbor'), ['cms.fhir.r4.read']);
    expect((await fhir(t, other, 'GET', url, undefined, { 'if-none-match': '*' })).statusCode).toBe(404);
  });

  it('updates into new versions, keeps each for vread and history, and refuses a stale If-Match with 412', async () => {
    const { id } = (await fhir(t, writer, 'POST', '/Patient', patient)).json();
    const v2 = await fhir(t, writer, 'PUT', `/Patient/${id}`, { ...patient, id, active: false }, { 'if-match': 'W/"1"' });
    expect(v2.statusCode).toBe(200);
    expect(v2.headers['etag']).toBe('W/"2"');
    expect(v2.json()).toMatchObject({ id, active: false, meta: { versionId: '2' } });
    const v3 = await fhir(t, writer, 'PUT', `/Patient/${id}`, { ...patient, id, gender: 'other' });
    expect(v3.json().meta.versionId).toBe('3');

    const stale = await fhir(t, writer, 'PUT', `/Patient/${id}`, { ...patient, id }, { 'if-match': 'W/"2"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'conflict' }] });

    const old = await fhir(t, writer, 'GET', `/Patient/${id}/_history/2`);
    expect(old.statusCode).toBe(200);
    expect(old.json()).toMatchObject({ active: false, meta: { versionId: '2' } });
    expect((await fhir(t, writer, 'GET', `/Patient/${id}/_history/9`)).statusCode).toBe(404);

    const history = (await fhir(t, writer, 'GET', `/Patient/${id}/_history`)).json();
    expect(history).toMatchObject({ resourceType: 'Bundle', type: 'history', total: 3 });
    expect(history.entry.map((e: { resource: { meta: { versionId: string } } }) => e.resource.meta.versionId)).toEqual(['3', '2', '1']);
    expect(history.entry[2].request).toEqual({ method: 'POST', url: 'Patient' });

    const typeHistory = (await fhir(t, writer, 'GET', '/Patient/_history?_count=2')).json();
    expect(typeHistory.entry).toHaveLength(2);
    expect(typeHistory.link.find((l: { relation: string }) => l.relation === 'next').url).toContain('_cursor=');
  });

  it('does not create on PUT (updateCreate false) and checks the body id', async () => {
    const missing = await fhir(t, writer, 'PUT', '/Patient/not-here', { ...patient, id: 'not-here' });
    expect(missing.statusCode).toBe(404);
    const { id } = (await fhir(t, writer, 'POST', '/Patient', patient)).json();
    const mismatch = await fhir(t, writer, 'PUT', `/Patient/${id}`, { ...patient, id: 'other' });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().issue[0].expression).toEqual(['Patient.id']);
  });

  it('conditionally creates with If-None-Exist: once, then answers the match; 412 when several match', async () => {
    const conditional = { resourceType: 'Patient', identifier: [{ system: 'urn:mrn', value: 'MRN-77' }], gender: 'male' };
    const first = await fhir(t, writer, 'POST', '/Patient', conditional, { 'if-none-exist': 'identifier=urn:mrn|MRN-77' });
    expect(first.statusCode).toBe(201);
    const again = await fhir(t, writer, 'POST', '/Patient', conditional, { 'if-none-exist': 'identifier=urn:mrn|MRN-77' });
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(first.json().id);

    await fhir(t, writer, 'POST', '/Patient', { ...conditional, identifier: [{ system: 'urn:mrn', value: 'MRN-78' }] });
    await fhir(t, writer, 'POST', '/Patient', { ...conditional, identifier: [{ system: 'urn:mrn', value: 'MRN-78' }] });
    const ambiguous = await fhir(t, writer, 'POST', '/Patient', conditional, { 'if-none-exist': 'identifier=urn:mrn|MRN-78' });
    expect(ambiguous.statusCode).toBe(412);
  });

  it('deletes softly: 204, then 410 on read, history keeps the deletion, search no longer finds it', async () => {
    const { id } = (await fhir(t, writer, 'POST', '/Patient', { ...patient, name: [{ family: 'Vanishing' }] })).json();
    const deleted = await fhir(t, writer, 'DELETE', `/Patient/${id}`);
    expect(deleted.statusCode).toBe(204);
    const gone = await fhir(t, writer, 'GET', `/Patient/${id}`);
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'deleted' }] });
    expect((await fhir(t, writer, 'DELETE', `/Patient/${id}`)).statusCode).toBe(204);
    expect((await fhir(t, writer, 'GET', `/Patient/${id}/_history/1`)).statusCode).toBe(200);
    const history = (await fhir(t, writer, 'GET', `/Patient/${id}/_history`)).json();
    expect(history.entry[0]).toMatchObject({ request: { method: 'DELETE' }, response: { status: '204 No Content' } });
    expect(history.entry[0].resource).toBeUndefined();
    expect((await fhir(t, writer, 'GET', '/Patient?family=vanishing')).json().total).toBe(0);
  });

  it('lands concurrent unconditional writes on successive versions, losing none; concurrent If-Match writes get one 200 and 412s', async () => {
    // Three writers at once: each can lose the race for a version at most twice, and is retried.
    const { id } = (await fhir(t, writer, 'POST', '/Patient', { ...patient, name: [{ family: 'Racing' }] })).json();
    const puts = await Promise.all(['A', 'B'].map((tag) => fhir(t, writer, 'PUT', `/Patient/${id}`, { ...patient, id, name: [{ family: 'Racing', given: [tag] }] })));
    const patched = await fhir(t, writer, 'PATCH', `/Patient/${id}`, [{ op: 'add', path: '/telecom', value: [{ system: 'phone', value: '+1 202 555 0199' }] }], { 'content-type': 'application/json-patch+json' });
    expect([...puts.map((r) => r.statusCode), patched.statusCode]).toEqual([200, 200, 200]);
    const versions = [...puts, patched].map((r) => Number(r.json().meta.versionId)).sort();
    expect(versions).toEqual([...new Set(versions)]);
    expect((await fhir(t, writer, 'GET', `/Patient/${id}`)).json().meta.versionId).toBe('4');

    const racers = await Promise.all(['C', 'D', 'E'].map((tag) => fhir(t, writer, 'PUT', `/Patient/${id}`, { ...patient, id, name: [{ family: 'Racing', given: [tag] }] }, { 'if-match': 'W/"4"' })));
    expect(racers.map((r) => r.statusCode).sort()).toEqual([200, 412, 412]);
    const deletes = await Promise.all([fhir(t, writer, 'DELETE', `/Patient/${id}`), fhir(t, writer, 'PUT', `/Patient/${id}`, { ...patient, id })]);
    expect(deletes[0].statusCode).toBe(204);
    expect([200, 410]).toContain(deletes[1].statusCode);
    expect((await fhir(t, writer, 'GET', `/Patient/${id}`)).statusCode).toBe(410);
  });

  it('honours Prefer: return=minimal and return=OperationOutcome', async () => {
    const minimal = await fhir(t, writer, 'POST', '/Patient', patient, { prefer: 'return=minimal' });
    expect(minimal.statusCode).toBe(201);
    expect(minimal.body).toBe('');
    expect(minimal.headers['location']).toMatch(/\/fhir\/R4\/Patient\/[0-9a-f-]{36}\/_history\/1$/);
    const outcome = await fhir(t, writer, 'POST', '/Patient', patient, { prefer: 'return=OperationOutcome' });
    expect(outcome.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'information' }] });
  });

  it('refuses invalid resources with an OperationOutcome naming each element', async () => {
    const res = await fhir(t, writer, 'POST', '/Patient', { resourceType: 'Patient', gender: 'xyz', birthDate: '1984-13-45', name: [{ family: 3, use: 'nickname-ish' }], colour: 'blue' });
    expect(res.statusCode).toBe(422);
    const issues = res.json().issue as { severity: string; code: string; expression: string[] }[];
    expect(issues.every((i) => i.severity === 'error' && i.code === 'invalid')).toBe(true);
    expect(issues.map((i) => i.expression[0])).toEqual(expect.arrayContaining(['Patient.gender', 'Patient.birthDate', 'Patient.name[0].family', 'Patient.name[0].use', 'Patient.colour']));

    const status = await fhir(t, writer, 'POST', '/Observation', { resourceType: 'Observation', status: 'done', code: { text: 'x' } });
    expect(status.statusCode).toBe(422);
    expect(status.json().issue.map((i: { expression: string[] }) => i.expression[0])).toEqual(['Observation.status']);
    const cardinality = await fhir(t, writer, 'POST', '/Observation', { resourceType: 'Observation', status: 'final' });
    expect(cardinality.statusCode).toBe(422);
    expect(cardinality.json().issue[0].expression).toEqual(['Observation.code']);

    // JSON of the wrong kind: a number where an object belongs, a primitive's extension that is not an object.
    const scalar = await fhir(t, writer, 'POST', '/Observation', { resourceType: 'Observation', status: 'final', code: 42, subject: true });
    expect(scalar.statusCode).toBe(422);
    expect(scalar.json().issue.map((i: { expression: string[] }) => i.expression[0])).toEqual(['Observation.code', 'Observation.subject']);
    const extension = await fhir(t, writer, 'POST', '/Patient', { resourceType: 'Patient', birthDate: '1984-03-02', _birthDate: 5 });
    expect(extension.statusCode).toBe(422);
    expect(extension.json().issue.map((i: { expression: string[] }) => i.expression[0])).toEqual(['Patient._birthDate']);

    // Nesting no resource needs (extensions 5,000 deep) is refused before any code walks it.
    const depth = 5000;
    const nested = await t.request({
      method: 'POST',
      url: '/fhir/R4/Patient',
      token: writer,
      headers: { 'content-type': 'application/fhir+json' },
      body: `{"resourceType":"Patient","extension":[${'{"url":"http://example.org/x","extension":['.repeat(depth)}{"url":"http://example.org/x","valueString":"y"}${']}'.repeat(depth)}]}`,
    });
    expect(nested.statusCode).toBe(400);
    expect(nested.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', diagnostics: expect.stringMatching(/nests objects and arrays deeper than 100 levels/) }] });
    // The same text inside a GraphQL string passes the HTTP layer's check: the FHIR subgraph's parse refuses it.
    const asText = await t.graphql(
      'mutation ($text: String!) { fhirCreate(resourceType: "Patient", resourceText: $text) { status } }',
      { text: `{"resourceType":"Patient","extension":[${'{"url":"http://example.org/x","extension":['.repeat(depth)}{"url":"http://example.org/x","valueString":"y"}${']}'.repeat(depth)}]}` },
      writer,
    );
    expect(asText.errors?.[0]).toMatchObject({ message: expect.stringMatching(/nests objects and arrays deeper than 100 levels/), extensions: { code: 'BAD_REQUEST' } });

    const wrongType = await fhir(t, writer, 'POST', '/Patient', { resourceType: 'Observation', status: 'final', code: { text: 'x' } });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().issue[0].expression).toEqual(['Patient.resourceType']);
    expect((await fhir(t, writer, 'POST', '/NotAType', { resourceType: 'NotAType' })).statusCode).toBe(404);
    expect((await fhir(t, writer, 'GET', '/Patient/bad$id')).statusCode).toBe(400);
  });

  it('stores any R4 type generically', async () => {
    for (const resource of [
      { resourceType: 'Observation', status: 'final', code: { coding: [{ system: 'http://loinc.org', code: '8867-4' }] }, valueQuantity: { value: 72, unit: '/min', system: 'http://unitsofmeasure.org', code: '/min' } },
      { resourceType: 'Organization', name: 'Harbor Clinic' },
      { resourceType: 'MedicationRequest', status: 'active', intent: 'order', subject: { reference: 'Patient/x' }, medicationCodeableConcept: { text: 'aspirin' } },
      { resourceType: 'ResearchStudy', status: 'active' },
    ]) {
      const res = await fhir(t, writer, 'POST', `/${resource.resourceType}`, resource);
      expect(res.statusCode, resource.resourceType).toBe(201);
      expect((await fhir(t, writer, 'GET', `/${resource.resourceType}/${res.json().id}`)).json()).toMatchObject(resource);
    }
  });

  it('accepts base64Binary wrapped with whitespace, as R4 allows, and keeps it as sent; still refuses non-base64', async () => {
    const wrapped = { resourceType: 'Binary', contentType: 'text/plain', data: 'SGVs bG8g\nV29y bGQh' };
    const created = await fhir(t, writer, 'POST', '/Binary', wrapped);
    expect(created.statusCode).toBe(201);
    expect((await fhir(t, writer, 'GET', `/Binary/${created.json().id}`)).json()).toMatchObject({ data: wrapped.data });
    const media = { resourceType: 'Media', status: 'completed', content: { contentType: 'image/gif', data: 'R0lG ODlh' } };
    expect((await fhir(t, writer, 'POST', '/Media', media)).statusCode).toBe(201);

    const broken = await fhir(t, writer, 'POST', '/Binary', { ...wrapped, data: 'SGVs bG8*' });
    expect(broken.statusCode).toBe(422);
    expect(broken.json().issue[0].expression).toEqual(['Binary.data']);
  });
});
