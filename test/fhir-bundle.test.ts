import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { PATIENCE_MS } from './support/patience.js';

interface ResponseEntry {
  fullUrl?: string;
  resource?: Record<string, unknown> & { id: string; meta: { versionId: string; lastUpdated: string } };
  response: { status: string; location?: string; etag?: string; lastModified?: string; outcome?: { issue: { expression?: string[]; code: string }[] } };
}

/**
 * POST /fhir/R4 with transaction and batch Bundles: urn:uuid and conditional references rewritten,
 * the spec's processing order, conditional create, all-or-nothing rollback naming the failing entry,
 * independent batch entries, bundle and per-entry scopes, tenancy and the entry limit.
 */
describe('FHIR R4 transaction and batch Bundles', () => {
  let t: TestSystem;
  let writer: string;
  let writerGpid: string;
  let other: string;

  beforeAll(async () => {
    // Many searches a second: the burst limit is not what this file tests.
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    writerGpid = await registerPartner(t, 'Bundle Clinic');
    writer = await apiToken(t, writerGpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push']);
    other = await apiToken(t, await registerPartner(t, 'Other Clinic'), ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push']);
  });
  afterAll(() => t?.close());

  const patient = (mrn: string, extra: Record<string, unknown> = {}) => ({ resourceType: 'Patient', identifier: [{ system: 'urn:mrn', value: mrn }], gender: 'female', ...extra });
  const search = async (token: string, query: string) => (await fhir(t, token, 'GET', query)).json() as { total: number; entry?: { resource: Record<string, unknown> & { id: string } }[] };

  it('runs a transaction: ids assigned, urn:uuid and conditional references rewritten, order DELETE POST PUT GET, conditional create', async () => {
    const doomed = (await fhir(t, writer, 'POST', '/Patient', patient('T-DEL'))).json();
    const kept = (await fhir(t, writer, 'POST', '/Patient', patient('T-PUT'))).json();
    const known = (await fhir(t, writer, 'POST', '/Patient', patient('T-KNOWN'))).json();

    const bundle = {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [
        // Listed first, processed last: the GET sees the transaction's own writes.
        { request: { method: 'GET', url: 'Patient?identifier=urn:mrn|T-NEW' } },
        { fullUrl: 'urn:uuid:0d5c3a9e-1111-4c1e-9d7e-000000000001', resource: patient('T-NEW', { name: [{ family: 'Newman' }] }), request: { method: 'POST', url: 'Patient' } },
        {
          fullUrl: 'urn:uuid:0d5c3a9e-1111-4c1e-9d7e-000000000002',
          resource: {
            resourceType: 'Observation',
            status: 'final',
            code: { coding: [{ system: 'http://loinc.org', code: '8867-4' }] },
            subject: { reference: 'urn:uuid:0d5c3a9e-1111-4c1e-9d7e-000000000001' },
            performer: [{ reference: 'Patient?identifier=urn:mrn|T-KNOWN' }],
          },
          request: { method: 'POST', url: 'Observation' },
        },
        { fullUrl: 'urn:uuid:0d5c3a9e-1111-4c1e-9d7e-000000000003', resource: patient('T-KNOWN'), request: { method: 'POST', url: 'Patient', ifNoneExist: 'identifier=urn:mrn|T-KNOWN' } },
        { resource: { ...patient('T-PUT'), id: kept.id, active: false }, request: { method: 'PUT', url: `Patient/${kept.id}`, ifMatch: 'W/"1"' } },
        { request: { method: 'DELETE', url: `Patient/${doomed.id}` } },
      ],
    };
    const res = await fhir(t, writer, 'POST', '', bundle);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/fhir\+json/);
    const body = res.json() as { resourceType: string; type: string; entry: ResponseEntry[] };
    expect(body).toMatchObject({ resourceType: 'Bundle', type: 'transaction-response' });
    expect(body.entry.map((e) => e.response.status)).toEqual(['200 OK', '201 Created', '201 Created', '200 OK', '200 OK', '204 No Content']);

    const newPatient = body.entry[1]!;
    expect(newPatient.response).toMatchObject({ location: `Patient/${newPatient.resource!.id}/_history/1`, etag: 'W/"1"', lastModified: newPatient.resource!.meta.lastUpdated });
    const observation = body.entry[2]!.resource!;
    expect(observation['subject']).toEqual({ reference: `Patient/${newPatient.resource!.id}` });
    expect(observation['performer']).toEqual([{ reference: `Patient/${known.id}` }]);
    expect(body.entry[3]!.resource!.id).toBe(known.id);
    expect(body.entry[4]!.response).toMatchObject({ etag: 'W/"2"' });
    // The GET ran after the POSTs: it finds the patient the transaction created.
    const searchset = body.entry[0]!.resource as unknown as { type: string; total: number };
    expect(searchset).toMatchObject({ type: 'searchset', total: 1 });

    expect((await fhir(t, writer, 'GET', `/Patient/${doomed.id}`)).statusCode).toBe(410);
    expect((await fhir(t, writer, 'GET', `/Observation?subject=Patient/${newPatient.resource!.id}`)).json().total).toBe(1);
    expect((await search(writer, '/Patient?identifier=urn:mrn|T-KNOWN')).total).toBe(1);

    // Every write of the transaction is an event through the outbox.
    const query = '{ events(first: 100, types: ["fhir.resource.created", "fhir.resource.updated", "fhir.resource.deleted"]) { edges { node { type data } } } }';
    await vi.waitFor(async () => {
      const events = await t.graphql<{ events: { edges: { node: { type: string; data: Record<string, unknown> } }[] } }>(query, {}, writer);
      const seen = events.data!.events.edges.map((e) => `${e.node.type} ${String(e.node.data['resource_id'])}`);
      expect(seen).toEqual(expect.arrayContaining([`fhir.resource.created ${newPatient.resource!.id}`, `fhir.resource.created ${observation.id}`, `fhir.resource.updated ${kept.id}`, `fhir.resource.deleted ${doomed.id}`]));
    }, { timeout: PATIENCE_MS, interval: 200 });
  });

  it('rolls the whole transaction back when one entry fails, naming it in the OperationOutcome', async () => {
    const victim = (await fhir(t, writer, 'POST', '/Patient', patient('R-VICTIM'))).json();
    const bundle = {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [
        { fullUrl: 'urn:uuid:7f000000-0000-4000-8000-000000000001', resource: patient('R-1'), request: { method: 'POST', url: 'Patient' } },
        { resource: { resourceType: 'Observation', status: 'final', code: { text: 'x' }, subject: { reference: 'urn:uuid:7f000000-0000-4000-8000-000000000001' } }, request: { method: 'POST', url: 'Observation' } },
        { request: { method: 'DELETE', url: `Patient/${victim.id}` } },
        { resource: patient('R-2', { gender: 'xyz' }), request: { method: 'POST', url: 'Patient' } },
      ],
    };
    const res = await fhir(t, writer, 'POST', '', bundle);
    expect(res.statusCode).toBe(422);
    const outcome = res.json();
    expect(outcome.resourceType).toBe('OperationOutcome');
    expect(outcome.issue.map((i: { expression: string[] }) => i.expression[0])).toContain('Bundle.entry[3].resource.gender');

    expect((await search(writer, '/Patient?identifier=urn:mrn|R-1')).total).toBe(0);
    expect((await fhir(t, writer, 'GET', `/Patient/${victim.id}`)).statusCode).toBe(200);

    const unknownRef = await fhir(t, writer, 'POST', '', { resourceType: 'Bundle', type: 'transaction', entry: [{ resource: { resourceType: 'Observation', status: 'final', code: { text: 'x' }, subject: { reference: 'urn:uuid:nowhere' } }, request: { method: 'POST', url: 'Observation' } }] });
    expect(unknownRef.statusCode).toBe(404);
    expect(unknownRef.json().issue[0].expression).toEqual(['Bundle.entry[0].resource.subject.reference']);
    const nestedRef = await fhir(t, writer, 'POST', '', {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [{ resource: { resourceType: 'Observation', status: 'final', code: { text: 'x' }, performer: [{ display: 'a' }, { reference: 'urn:uuid:nowhere' }] }, request: { method: 'POST', url: 'Observation' } }],
    });
    expect(nestedRef.json().issue[0].expression).toEqual(['Bundle.entry[0].resource.performer[1].reference']);

    const ambiguous = await fhir(t, writer, 'POST', '', {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [{ resource: { resourceType: 'Observation', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient?gender=female' } }, request: { method: 'POST', url: 'Observation' } }],
    });
    expect(ambiguous.statusCode).toBe(412);
    expect(ambiguous.json().issue[0].expression).toEqual(['Bundle.entry[0].resource.subject.reference']);

    const badRequest = await fhir(t, writer, 'POST', '', { resourceType: 'Bundle', type: 'transaction', entry: [{ resource: patient('X'), request: { method: 'TRACE', url: 'Patient' } }] });
    expect(badRequest.statusCode).toBe(400);
    expect(badRequest.json().issue[0].expression).toEqual(['Bundle.entry[0].request.method']);
    expect((await fhir(t, writer, 'POST', '', { resourceType: 'Bundle', type: 'collection' })).json().issue[0].expression).toEqual(['Bundle.type']);
  });

  it('runs batch entries independently: one failure does not stop the others', async () => {
    const existing = (await fhir(t, writer, 'POST', '/Patient', patient('B-1'))).json();
    const res = await fhir(t, writer, 'POST', '', {
      resourceType: 'Bundle',
      type: 'batch',
      entry: [
        { resource: patient('B-2'), request: { method: 'POST', url: 'Patient' } },
        { resource: patient('B-3', { gender: 'xyz' }), request: { method: 'POST', url: 'Patient' } },
        { request: { method: 'GET', url: `Patient/${existing.id}` } },
        { request: { method: 'GET', url: 'Patient/no-such-patient' } },
        { resource: { resourceType: 'Observation', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient?identifier=urn:mrn|B-1' } }, request: { method: 'POST', url: 'Observation' } },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { type: string; entry: ResponseEntry[] };
    expect(body.type).toBe('batch-response');
    expect(body.entry.map((e) => e.response.status)).toEqual(['201 Created', '422 Unprocessable Entity', '200 OK', '404 Not Found', '201 Created']);
    expect(body.entry[1]!.response.outcome!.issue[0]!.expression).toEqual(['Bundle.entry[1].resource.gender']);
    expect(body.entry[3]!.response.outcome!.issue[0]!.code).toBe('not-found');
    expect(body.entry[4]!.resource!['subject']).toEqual({ reference: `Patient/${existing.id}` });
    expect((await search(writer, '/Patient?identifier=urn:mrn|B-2')).total).toBe(1);
    expect((await search(writer, '/Patient?identifier=urn:mrn|B-3')).total).toBe(0);
  });

  it('needs a bundle scope and each entry’s own scope; Prefer: return=minimal; another partner’s resources are missing', async () => {
    const noBundleScope = await apiToken(t, writerGpid, ['cms.fhir.rest.write']);
    const one = { resourceType: 'Bundle', type: 'transaction', entry: [{ resource: patient('S-1'), request: { method: 'POST', url: 'Patient' } }] };
    expect((await fhir(t, noBundleScope, 'POST', '', one)).statusCode).toBe(403);

    const bundleOnly = await apiToken(t, writerGpid, ['cms.fhir.bundle.push']);
    const refused = await fhir(t, bundleOnly, 'POST', '', one);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().issue[0].expression).toEqual(['Bundle.entry[0]']);

    // system/*.write is both the bundle scope and every write entry's scope.
    const systemWriter = await apiToken(t, null, ['system/*.write']);
    const minimal = await fhir(t, systemWriter, 'POST', '', one, { prefer: 'return=minimal' });
    expect(minimal.statusCode).toBe(200);
    const entry = (minimal.json() as { entry: ResponseEntry[] }).entry[0]!;
    expect(entry.resource).toBeUndefined();
    expect(entry.response).toMatchObject({ status: '201 Created', etag: 'W/"1"', location: expect.stringMatching(/^Patient\/[0-9a-f-]{36}\/_history\/1$/) });

    const mine = (await fhir(t, writer, 'POST', '/Patient', patient('S-2'))).json();
    const foreign = await fhir(t, other, 'POST', '', { resourceType: 'Bundle', type: 'transaction', entry: [{ resource: { ...patient('S-2'), id: mine.id }, request: { method: 'PUT', url: `Patient/${mine.id}` } }] });
    expect(foreign.statusCode).toBe(404);

    const tooMany = { resourceType: 'Bundle', type: 'batch', entry: Array.from({ length: 1001 }, () => ({ request: { method: 'GET', url: 'Patient?_count=1' } })) };
    const big = await fhir(t, writer, 'POST', '', tooMany);
    expect(big.statusCode).toBe(413);
    expect(big.json().issue[0].expression).toEqual(['Bundle.entry']);
  });

  it('indexes the creates of a transaction exactly as single creates: the same searches find both, values and content intact', async () => {
    const tag = `bulk-${Date.now()}`;
    const person = { resourceType: 'Patient', identifier: [{ system: 'urn:bulk', value: tag }], name: [{ family: 'Ångström-Nuñez', given: ['Zoë', 'O\'Brien "Jr"'] }], birthDate: '1961-07-04', gender: 'other' };
    const vital = (subject: string) => ({
      resourceType: 'Observation',
      status: 'final',
      identifier: [{ system: 'urn:bulk', value: tag }],
      code: { coding: [{ system: 'http://loinc.org', code: '8480-6' }] },
      subject: { reference: subject },
      effectivePeriod: { start: '2024-02-29T23:59:59.999+02:00', end: '2024-03-01' },
      valueQuantity: { value: 120.5, unit: 'mm[Hg]', system: 'http://unitsofmeasure.org', code: 'mm[Hg]' },
      component: [
        { code: { coding: [{ system: 'http://loinc.org', code: '8462-4' }] }, valueQuantity: { value: 1e-7, system: 'http://unitsofmeasure.org', code: 'mm[Hg]' } },
        { code: { coding: [{ system: 'http://loinc.org', code: '8867-4' }] }, valueString: 'ßtraße — ☃ 𝄞' },
      ],
    });
    const single = (await fhir(t, writer, 'POST', '/Patient', person)).json();
    const created = await fhir(t, writer, 'POST', '/Observation', vital(`Patient/${single.id}`));
    expect(created.statusCode, created.body).toBe(201);
    const singleObs = created.json();
    const res = await fhir(t, writer, 'POST', '', {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [
        { fullUrl: 'urn:uuid:7f000000-0000-4000-8000-0000000000aa', request: { method: 'POST', url: 'Patient' }, resource: person },
        { request: { method: 'POST', url: 'Observation' }, resource: vital('urn:uuid:7f000000-0000-4000-8000-0000000000aa') },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const [bulk, bulkObs] = (res.json().entry as ResponseEntry[]).map((e) => e.resource!);
    const queries = [
      `/Patient?identifier=urn:bulk|${tag}&name=angstrom`,
      `/Patient?identifier=urn:bulk|${tag}&given:exact=${encodeURIComponent('O\'Brien "Jr"')}`,
      `/Patient?identifier=urn:bulk|${tag}&birthdate=1961-07-04&gender=other`,
      `/Observation?identifier=urn:bulk|${tag}&value-quantity=120.5|http://unitsofmeasure.org|mm[Hg]`,
      `/Observation?identifier=urn:bulk|${tag}&date=gt2024-02-29T21:00:00Z&date=lt2024-03-02`,
      `/Observation?identifier=urn:bulk|${tag}&component-code-value-quantity=${encodeURIComponent('http://loinc.org|8462-4$1e-7')}`,
      `/Observation?identifier=urn:bulk|${tag}&code-value-quantity=${encodeURIComponent('http://loinc.org|8480-6$gt120')}`,
      `/Observation?identifier=urn:bulk|${tag}&subject:Patient.family=angstr`,
    ];
    for (const q of queries) {
      const found = await search(writer, q);
      expect(found.entry?.map((e) => e.resource.id).sort(), q).toEqual([q.startsWith('/Patient') ? single.id : singleObs.id, q.startsWith('/Patient') ? bulk!.id : bulkObs!.id].sort());
    }
    const read = (await fhir(t, writer, 'GET', `/Observation/${bulkObs!.id}`)).json();
    const { meta: _m1, id: _i1, subject: _s1, ...bulkBody } = read;
    const { meta: _m2, id: _i2, subject: _s2, ...singleBody } = (await fhir(t, writer, 'GET', `/Observation/${singleObs.id}`)).json();
    expect(bulkBody).toEqual(singleBody);
  });
  it('writes a large transaction in bulk: searches find every create, versions and history read back, and an invalid entry rolls back, named', async () => {
    const tag = `large-${Date.now()}`;
    const entries = (broken?: number) => [
      { fullUrl: 'urn:uuid:7f000000-0000-4000-8000-0000000000bb', request: { method: 'POST', url: 'Patient' }, resource: { resourceType: 'Patient', identifier: [{ system: 'urn:large', value: tag }], name: [{ family: 'Ödegård' }], birthDate: '1980-02-29' } },
      ...Array.from({ length: 59 }, (_, i) => ({
        request: { method: 'POST', url: 'Observation' },
        resource: {
          resourceType: 'Observation',
          status: i + 1 === broken ? 'almost-final' : 'final',
          identifier: [{ system: 'urn:large', value: `${tag}-${i}` }],
          code: { coding: [{ system: 'http://loinc.org', code: '8867-4' }] },
          subject: { reference: 'urn:uuid:7f000000-0000-4000-8000-0000000000bb' },
          effectiveDateTime: `2024-03-${String((i % 28) + 1).padStart(2, '0')}`,
          valueQuantity: { value: 60 + i, unit: '/min', system: 'http://unitsofmeasure.org', code: '/min' },
        },
      })),
    ];
    const refused = await fhir(t, writer, 'POST', '', { resourceType: 'Bundle', type: 'transaction', entry: entries(37) });
    expect(refused.statusCode, refused.body).toBe(422);
    const outcome = refused.json() as { issue: { expression?: string[]; diagnostics?: string }[] };
    expect(outcome.issue.flatMap((i) => i.expression ?? [])).toContain('Bundle.entry[37].resource.status');
    expect((await search(writer, `/Patient?identifier=urn:large|${tag}`)).total).toBe(0);

    const res = await fhir(t, writer, 'POST', '', { resourceType: 'Bundle', type: 'transaction', entry: entries() });
    expect(res.statusCode, res.body).toBe(200);
    const created = (res.json().entry as ResponseEntry[]).map((e) => e.resource!);
    expect(created).toHaveLength(60);
    const [person] = created;
    expect((await search(writer, `/Patient?identifier=urn:large|${tag}&name=odegard&birthdate=1980-02-29`)).entry?.map((e) => e.resource.id)).toEqual([person!.id]);
    const found = await search(writer, `/Observation?subject=Patient/${person!.id}&code=http://loinc.org|8867-4&value-quantity=ge100&_count=100`);
    expect(found.entry?.map((e) => e.resource.id).sort()).toEqual(created.slice(41).map((r) => r.id).sort());
    const one = await search(writer, `/Observation?identifier=urn:large|${tag}-7&date=2024-03-08`);
    expect(one.entry?.map((e) => e.resource.id)).toEqual([created[8]!.id]);
    expect((await fhir(t, other, 'GET', `/Observation/${created[8]!.id}`)).statusCode).toBe(404);
    const version = await fhir(t, writer, 'GET', `/Observation/${created[8]!.id}/_history/1`);
    expect(version.statusCode).toBe(200);
    expect(version.json()).toEqual((await fhir(t, writer, 'GET', `/Observation/${created[8]!.id}`)).json());
    const history = (await fhir(t, writer, 'GET', `/Patient/${person!.id}/_history`)).json() as { entry: unknown[] };
    expect(history.entry).toHaveLength(1);
  });
});
