import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

const JSON_PATCH = { 'content-type': 'application/json-patch+json' };

/**
 * PATCH with JSON Patch (RFC 6902), conditional update, delete and patch by search, and the same
 * in transaction Bundles; tenancy makes another partner's resources invisible to the conditions.
 */
describe('FHIR R4 PATCH and conditional update/delete', () => {
  let t: TestSystem;
  let writer: string;
  let other: string;

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    writer = await apiToken(t, await registerPartner(t, 'Patch Clinic'), ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push']);
    other = await apiToken(t, await registerPartner(t, 'Patch Other'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
  });
  afterAll(() => t?.close());

  const patient = (mrn: string, extra: Record<string, unknown> = {}) => ({ resourceType: 'Patient', identifier: [{ system: 'urn:mrn', value: mrn }], gender: 'female', ...extra });
  const patchRequest = (token: string, path: string, ops: unknown, headers: Record<string, string> = {}) =>
    t.request({ method: 'PATCH', url: `/fhir/R4${path}`, token, headers: { ...JSON_PATCH, ...headers }, body: JSON.stringify(ops) });

  it('patches with JSON Patch into a new version, honours If-Match, and refuses bad patches with the operation named', async () => {
    const { id } = (await fhir(t, writer, 'POST', '/Patient', patient('P-1', { name: [{ family: 'Before' }] }))).json();
    const res = await patchRequest(writer, `/Patient/${id}`, [
      { op: 'test', path: '/gender', value: 'female' },
      { op: 'replace', path: '/name/0/family', value: 'After' },
      { op: 'add', path: '/active', value: true },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['etag']).toBe('W/"2"');
    expect(res.json()).toMatchObject({ id, active: true, name: [{ family: 'After' }], meta: { versionId: '2' } });
    expect((await fhir(t, writer, 'GET', `/Patient?identifier=urn:mrn|P-1&family=after`)).json().total).toBe(1);

    const stale = await patchRequest(writer, `/Patient/${id}`, [{ op: 'replace', path: '/active', value: false }], { 'if-match': 'W/"1"' });
    expect(stale.statusCode).toBe(412);
    const failedTest = await patchRequest(writer, `/Patient/${id}`, [{ op: 'test', path: '/gender', value: 'male' }]);
    expect(failedTest.statusCode).toBe(422);
    expect(failedTest.json().issue[0].expression).toEqual(['patch[0]']);
    const invalid = await patchRequest(writer, `/Patient/${id}`, [{ op: 'replace', path: '/gender', value: 'xyz' }]);
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().issue[0].expression).toEqual(['Patient.gender']);
    const malformed = await patchRequest(writer, `/Patient/${id}`, [{ op: 'jump', path: '/gender' }]);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().issue[0].expression).toEqual(['patch[0]']);
    expect((await patchRequest(writer, `/Patient/${id}`, [{ op: 'replace', path: '/id', value: 'other' }])).statusCode).toBe(400);
    expect((await patchRequest(other, `/Patient/${id}`, [{ op: 'add', path: '/active', value: false }])).statusCode).toBe(404);
    expect((await fhir(t, writer, 'GET', `/Patient/${id}`)).json().meta.versionId).toBe('2');
  });

  it('conditional update creates on no match, updates the one match, refuses several with 412', async () => {
    const created = await fhir(t, writer, 'PUT', '/Patient?identifier=urn:mrn|C-1', patient('C-1'));
    expect(created.statusCode).toBe(201);
    const { id } = created.json();
    const updated = await fhir(t, writer, 'PUT', '/Patient?identifier=urn:mrn|C-1', patient('C-1', { gender: 'male' }));
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ id, gender: 'male', meta: { versionId: '2' } });
    expect((await fhir(t, writer, 'PUT', '/Patient?identifier=urn:mrn|C-1', { ...patient('C-1'), id: 'someone-else' })).statusCode).toBe(400);
    await fhir(t, writer, 'POST', '/Patient', patient('C-1'));
    expect((await fhir(t, writer, 'PUT', '/Patient?identifier=urn:mrn|C-1', patient('C-1'))).statusCode).toBe(412);
    // Another partner's condition does not see these: it creates its own.
    expect((await fhir(t, other, 'PUT', '/Patient?identifier=urn:mrn|C-1', patient('C-1'))).statusCode).toBe(201);
    expect((await fhir(t, writer, 'PUT', '/Patient', patient('C-1'))).statusCode).toBe(400);
  });

  it('conditional delete removes the one match, is 204 for none and 412 for several; conditional patch', async () => {
    const { id } = (await fhir(t, writer, 'POST', '/Patient', patient('D-1'))).json();
    expect((await fhir(t, writer, 'DELETE', '/Patient?identifier=urn:mrn|D-1')).statusCode).toBe(204);
    expect((await fhir(t, writer, 'GET', `/Patient/${id}`)).statusCode).toBe(410);
    expect((await fhir(t, writer, 'DELETE', '/Patient?identifier=urn:mrn|D-1')).statusCode).toBe(204);
    expect((await fhir(t, writer, 'DELETE', '/Patient?gender=female')).statusCode).toBe(412);

    const { id: pid } = (await fhir(t, writer, 'POST', '/Patient', patient('D-2'))).json();
    const patched = await patchRequest(writer, '/Patient?identifier=urn:mrn|D-2', [{ op: 'add', path: '/active', value: true }]);
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id: pid, active: true });
    expect((await patchRequest(writer, '/Patient?identifier=urn:mrn|none', [{ op: 'add', path: '/active', value: true }])).statusCode).toBe(404);
  });

  it('runs conditional PUT, conditional DELETE and PATCH (Binary JSON Patch) entries in a transaction', async () => {
    const { id: keep } = (await fhir(t, writer, 'POST', '/Patient', patient('T-1'))).json();
    const { id: drop } = (await fhir(t, writer, 'POST', '/Patient', patient('T-2'))).json();
    const ops = Buffer.from(JSON.stringify([{ op: 'add', path: '/active', value: false }])).toString('base64');
    const res = await fhir(t, writer, 'POST', '', {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [
        { resource: { resourceType: 'Binary', contentType: 'application/json-patch+json', data: ops }, request: { method: 'PATCH', url: `Patient/${keep}` } },
        { resource: patient('T-3'), request: { method: 'PUT', url: 'Patient?identifier=urn:mrn|T-3' } },
        { request: { method: 'DELETE', url: 'Patient?identifier=urn:mrn|T-2' } },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().entry.map((e: { response: { status: string } }) => e.response.status)).toEqual(['200 OK', '201 Created', '204 No Content']);
    expect((await fhir(t, writer, 'GET', `/Patient/${keep}`)).json().active).toBe(false);
    expect((await fhir(t, writer, 'GET', `/Patient/${drop}`)).statusCode).toBe(410);

    const cs = (await fhir(t, null, 'GET', '/metadata')).json();
    const patientEntry = cs.rest[0].resource.find((r: { type: string }) => r.type === 'Patient');
    expect(patientEntry).toMatchObject({ conditionalUpdate: true, conditionalDelete: 'single', interaction: expect.arrayContaining([{ code: 'patch' }]) });
    expect(cs.patchFormat).toEqual(['application/json-patch+json']);
  });
});
