import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { eventsOf, eventually, identityClient, mintToken } from './support/identity.js';

/**
 * The identity link of FHIR Patients: a Patient written with X-Svc-Source gets its GPID from the
 * identity registry as an identifier (through internal events, never through a call between
 * subgraphs), projected on reads without a version of its own; GraphQL federates both ways
 * (FhirPatient.identity, Identity.patients); and Patient/$match is answered by identity
 * resolution, in the caller's view only.
 */
describe('FHIR Patient ↔ GPID identity link', () => {
  let t: TestSystem;
  let alphaGpid: string;
  let alpha: string;
  let beta: string;
  const GPID_SYSTEM = 'urn:svc:gpid';
  const person = (given: string, family: string, birthDate: string, email?: string) => ({
    resourceType: 'Patient',
    name: [{ use: 'official', family, given: [given] }],
    gender: 'female',
    birthDate,
    ...(email ? { telecom: [{ system: 'email', value: email }] } : {}),
  });
  const gpidOf = (p: { identifier?: { system?: string; value?: string }[] }) => p.identifier?.find((i) => i.system === GPID_SYSTEM)?.value;
  /** The Patient once it carries a GPID. */
  const linked = (token: string, id: string) =>
    eventually(async () => {
      const p = (await fhir(t, token, 'GET', `/Patient/${id}`)).json();
      expect(gpidOf(p)).toMatch(/^SVC-[0-9A-F]{8}$/);
      return p as { identifier: { system: string; value: string }[]; meta: { versionId: string } };
    });

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    alphaGpid = await registerPartner(t, 'Alpha Clinic');
    alpha = await apiToken(t, alphaGpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'identity.read']);
    beta = await apiToken(t, await registerPartner(t, 'Beta Clinic'), ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'identity.read']);
  });
  afterAll(() => t?.close());

  it('gives a Patient written with X-Svc-Source its GPID as an identifier, the same GPID for the same person', async () => {
    const created = await fhir(t, alpha, 'POST', '/Patient', person('Maria', 'Lindqvist', '1984-02-17', 'maria.lindqvist@example.org'), { 'x-svc-source': 'provider' });
    expect(created.statusCode).toBe(201);
    const first = await linked(alpha, created.json().id);
    expect(first.identifier).toContainEqual({ use: 'secondary', system: GPID_SYSTEM, value: gpidOf(first), assigner: { display: 'GPID registry' } });
    // R4 http.html: "the server SHALL return an ETag header with the versionId" — the link writes no
    // version, so the ETag the create answered is still the current one.
    expect(first.meta.versionId).toBe('1');
    expect(created.headers['etag']).toBe('W/"1"');
    const history = (await fhir(t, alpha, 'GET', `/Patient/${created.json().id}/_history`)).json();
    expect(history.entry.map((e: { request: { method: string } }) => e.request.method)).toEqual(['POST']);
    expect(gpidOf(history.entry[0].resource)).toBe(gpidOf(first));
    expect(gpidOf((await fhir(t, alpha, 'GET', `/Patient/${created.json().id}/_history/1`)).json())).toBe(gpidOf(first));

    const twin = await fhir(t, alpha, 'POST', '/Patient', person('Maria', 'Lindqvist', '1984-02-17', 'maria.lindqvist@example.org'), { 'x-svc-source': 'provider' });
    expect(gpidOf(await linked(alpha, twin.json().id))).toBe(gpidOf(first));

    // A search by the GPID finds both (the identifier is indexed like any other).
    const found = (await fhir(t, alpha, 'GET', `/Patient?identifier=${encodeURIComponent(`${GPID_SYSTEM}|${gpidOf(first)}`)}`)).json();
    expect(found.entry.map((e: { resource: { id: string } }) => e.resource.id).sort()).toEqual([created.json().id, twin.json().id].sort());

    // An update that keeps the demographics keeps the GPID, even when the client leaves the identifier out.
    const body = { ...person('Maria', 'Lindqvist', '1984-02-17', 'maria.lindqvist@example.org'), id: created.json().id };
    const updated = (await fhir(t, alpha, 'PUT', `/Patient/${created.json().id}`, body, { 'x-svc-source': 'provider' })).json();
    expect(gpidOf(updated)).toBe(gpidOf(first));
    // A client cannot set a GPID of its own choosing.
    const forged = (await fhir(t, alpha, 'PUT', `/Patient/${created.json().id}`, { ...body, identifier: [{ system: GPID_SYSTEM, value: 'SVC-00000000' }] })).json();
    expect(gpidOf(forged)).toBe(gpidOf(first));
  });

  it('lets a client update with the ETag its create answered, before and after the link arrives (If-Match read-modify-write)', async () => {
    // R4 http.html (update): "If the version id given in the If-Match header does not match, the
    // server returns a 412 Precondition Failed": it matches, since only the client writes versions.
    const created = await fhir(t, alpha, 'POST', '/Patient', person('Tove', 'Marklund', '1990-05-05', 'tove.marklund@example.se'), { 'x-svc-source': 'provider' });
    const id = created.json().id as string;
    const early = await fhir(t, alpha, 'PUT', `/Patient/${id}`, { ...(created.json() as Record<string, unknown>), active: true }, { 'if-match': created.headers['etag'] as string, 'x-svc-source': 'provider' });
    expect(early.statusCode, early.body).toBe(200);
    expect(early.headers['etag']).toBe('W/"2"');
    const read = await linked(alpha, id);
    expect(read.meta.versionId).toBe('2');
    // Read, modify, write back with If-Match: the GPID identifier echoed back is the server's, kept.
    const readBack = await fhir(t, alpha, 'GET', `/Patient/${id}`);
    const late = await fhir(t, alpha, 'PUT', `/Patient/${id}`, { ...(readBack.json() as Record<string, unknown>), gender: 'other' }, { 'if-match': readBack.headers['etag'] as string });
    expect(late.statusCode, late.body).toBe(200);
    expect(gpidOf(late.json())).toBe(gpidOf(read));
    const history = (await fhir(t, alpha, 'GET', `/Patient/${id}/_history`)).json();
    expect(history.entry.map((e: { request: { method: string } }) => e.request.method)).toEqual(['PUT', 'PUT', 'POST']);
    const byGpid = (await fhir(t, alpha, 'GET', `/Patient?identifier=${encodeURIComponent(`${GPID_SYSTEM}|${gpidOf(read)}`)}`)).json();
    expect(byGpid.entry.map((e: { resource: { id: string } }) => e.resource.id)).toContain(id);
  });

  it('links Patients created by a transaction Bundle with X-Svc-Source, like single creates', async () => {
    const pusher = await apiToken(t, alphaGpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push']);
    const bundle = {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [
        { fullUrl: 'urn:uuid:5b1e0c3e-0000-4000-8000-000000000001', request: { method: 'POST', url: 'Patient' }, resource: person('Ingrid', 'Halvorsen', '1979-11-03', 'ingrid.halvorsen@example.org') },
        { request: { method: 'POST', url: 'Observation' }, resource: { resourceType: 'Observation', status: 'final', code: { text: 'weight' }, subject: { reference: 'urn:uuid:5b1e0c3e-0000-4000-8000-000000000001' } } },
      ],
    };
    const res = await fhir(t, pusher, 'POST', '', bundle, { 'x-svc-source': 'provider' });
    expect(res.statusCode).toBe(200);
    const id = res.json().entry[0].response.location.split('/')[1];
    const patient = await linked(alpha, id);
    expect(patient.meta.versionId).toBe('1');
  });

  it('never logs the internal hand-off events, and the link records no fhir.resource.updated', async () => {
    const created = await fhir(t, alpha, 'POST', '/Patient', person('Internal', 'Handoff', '1970-01-01'), { 'x-svc-source': 'lake' });
    await linked(alpha, created.json().id);
    await eventually(async () => expect((await eventsOf(t, ['fhir.resource.created'])).some((e) => e.data['resource_id'] === created.json().id)).toBe(true));
    expect((await eventsOf(t, ['fhir.resource.updated'])).filter((e) => e.data['resource_id'] === created.json().id)).toEqual([]);
    const logged = await eventsOf(t, ['fhir.internal.patient_identity_requested', 'identity.internal.fhir_patient_linked']);
    expect(logged).toEqual([]);
    // The resolve it caused is evidence of the boundary header on the FHIR write path, not on /api/identity/resolve.
    const observed = await eventsOf(t, ['identity.boundary_headers.observed']);
    // (Once per partner, path and day: the first Patient of this file made it.)
    const alphas = observed.filter((e) => e.data['partner_gpid'] === alphaGpid).map((e) => e.data['path']);
    expect(alphas).toEqual(['/fhir/R4/Patient']);
  });

  it('federates both ways: FhirPatient.identity and Identity.patients, each in the caller\'s view', async () => {
    const mine = await fhir(t, alpha, 'POST', '/Patient', person('Jonas', 'Okafor', '1991-11-03', 'jonas.okafor@example.net'), { 'x-svc-source': 'pulse' });
    const gpid = gpidOf(await linked(alpha, mine.json().id))!;
    // Beta holds the same person: the registry gives it the same GPID, but Alpha never sees Beta's Patient.
    const theirs = await fhir(t, beta, 'POST', '/Patient', person('Jonas', 'Okafor', '1991-11-03', 'jonas.okafor@example.net'), { 'x-svc-source': 'beacon' });
    expect(gpidOf(await linked(beta, theirs.json().id))).toBe(gpid);

    const typed = await t.graphql<{ fhirPatient: { id: string; identity: { gpid: string; status: string; patients: { id: string }[] } } }>(
      'query($id: ID!) { fhirPatient(id: $id) { id identity { gpid status patients { id } } } }',
      { id: mine.json().id },
      alpha,
    );
    expect(typed.errors).toBeUndefined();
    expect(typed.data!.fhirPatient.identity).toMatchObject({ gpid, patients: [{ id: mine.json().id }] });
    expect(typed.data!.fhirPatient.identity.status).toBeTruthy();

    const identity = await t.graphql<{ identity: { patients: { id: string; birthDate: string }[] } }>('query($g: ID!) { identity(gpid: $g) { patients { id birthDate } } }', { g: gpid }, beta);
    expect(identity.errors).toBeUndefined();
    expect(identity.data!.identity.patients).toEqual([{ id: theirs.json().id, birthDate: '1991-11-03' }]);
    // The operator sees every partner's.
    const all = await t.graphql<{ identity: { patients: { id: string }[] } }>('query($g: ID!) { identity(gpid: $g) { patients { id } } }', { g: gpid });
    expect(all.data!.identity.patients.map((p) => p.id).sort()).toEqual([mine.json().id, theirs.json().id].sort());
  });

  it('hands the registry the Patient\'s identifiers, address, gender and other telecoms: a Patient known by its SSN matches without a name', async () => {
    const ssn = { system: 'http://hl7.org/fhir/sid/us-ssn', value: '123-45-6789' };
    const mrn = { type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MR' }] }, system: 'urn:oid:1.2.36.146.595.217.0.1', value: 'MRN-0042' };
    const created = await fhir(
      t,
      alpha,
      'POST',
      '/Patient',
      {
        ...person('Ingrid', 'Solberg', '1969-09-09', 'ingrid@example.no'),
        identifier: [ssn, mrn],
        address: [{ use: 'home', line: ['12 Fjord Street', 'Apt 4'], city: 'Seattle', state: 'WA', postalCode: '98101', country: 'US' }],
        telecom: [{ system: 'email', value: 'ingrid@example.no' }, { system: 'phone', value: '+1 206 555 0142' }, { system: 'email', value: 'solberg@example.com' }],
      },
      { 'x-svc-source': 'provider' },
    );
    expect(created.statusCode, created.body).toBe(201);
    const gpid = gpidOf(await linked(alpha, created.json().id));
    const match = (resource: unknown) =>
      t.request({ method: 'POST', url: '/fhir/R4/Patient/$match', token: alpha, headers: { 'content-type': 'application/fhir+json' }, body: JSON.stringify({ resourceType: 'Parameters', parameter: [{ name: 'resource', resource }] }) });
    // No name, no birth date: the SSN alone finds her, since the link stored its fingerprint.
    const bySsn = await match({ resourceType: 'Patient', identifier: [{ system: 'http://hl7.org/fhir/sid/us-ssn', value: '123456789' }] });
    expect(bySsn.statusCode, bySsn.body).toBe(200);
    expect(bySsn.json().entry.map((e: { resource: { id: string } }) => gpidOf(e.resource as never))).toContain(gpid);
    // A bad address in the query names where it came from.
    const bad = await match({ resourceType: 'Patient', name: [{ family: 'Solberg', given: ['Ingrid'] }], address: [{ city: 'Seattle', state: 'Atlantis', country: 'US' }] });
    if (bad.statusCode === 400) expect(bad.json().issue[0].expression[0]).toBe('resource.address');
    else expect(bad.statusCode).toBe(200); // dropped as an optional field the registry could not use
  });

  it('reads identifiers by system URI and v2-0203 type, keeps unknown systems opaque and carries the verified flag', async () => {
    const licence = { system: 'urn:oid:2.16.840.1.113883.4.3.6', value: 'D7654321' };
    const clinic = { system: 'https://clinic.example/patient-ids', value: 'ch-2231' };
    const verifiedSsn = { system: 'http://hl7.org/fhir/sid/us-ssn', value: '345-67-8912', extension: [{ url: 'urn:svc:extension:identifier-verified', valueBoolean: true }] };
    const created = await fhir(t, alpha, 'POST', '/Patient', { ...person('Leocadia', 'Brannigan', '1975-04-22'), identifier: [licence, clinic, verifiedSsn] }, { 'x-svc-source': 'provider' });
    expect(created.statusCode, created.body).toBe(201);
    const gpid = gpidOf(await linked(alpha, created.json().id));
    const match = (identifier: unknown[]) =>
      t.request({ method: 'POST', url: '/fhir/R4/Patient/$match', token: alpha, headers: { 'content-type': 'application/fhir+json' }, body: JSON.stringify({ resourceType: 'Parameters', parameter: [{ name: 'resource', resource: { resourceType: 'Patient', identifier } }] }) });
    const gpidsOf = (res: { json: () => { entry?: { resource: unknown }[] } }) => (res.json().entry ?? []).map((e) => gpidOf(e.resource as never));
    // The California licence by its type code and state, the opaque system by its very URI and value.
    expect(gpidsOf(await match([{ type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'DL' }] }, assigner: { display: 'California' }, value: 'D7654321' }]))).toContain(gpid);
    expect(gpidsOf(await match([clinic]))).toContain(gpid);
    // The source verified the SSN: a Patient one keystroke away is not linked to it automatically.
    const typo = await fhir(t, alpha, 'POST', '/Patient', { ...person('Leocadia', 'Brannigan', '1975-04-22'), identifier: [{ system: 'http://hl7.org/fhir/sid/us-ssn', value: '345-67-8921' }] }, { 'x-svc-source': 'lake' });
    expect(gpidOf(await linked(alpha, typo.json().id))).not.toBe(gpid);
  });

  it('answers Patient/$match by identity resolution, with score and grade, in the caller\'s view', async () => {
    const a = await fhir(t, alpha, 'POST', '/Patient', person('Priya', 'Ramanathan', '1978-06-30', 'priya.r@example.com'), { 'x-svc-source': 'provider' });
    const gpid = gpidOf(await linked(alpha, a.json().id));
    const b = await fhir(t, beta, 'POST', '/Patient', person('Priya', 'Ramanathan', '1978-06-30', 'priya.r@example.com'), { 'x-svc-source': 'provider' });
    await linked(beta, b.json().id);
    const match = (body: unknown, token = alpha) => t.request({ method: 'POST', url: '/fhir/R4/Patient/$match', token, headers: { 'content-type': 'application/fhir+json' }, body: JSON.stringify(body) });
    const params = (resource: unknown, more: unknown[] = []) => ({ resourceType: 'Parameters', parameter: [{ name: 'resource', resource }, ...more] as { name: string; resource?: unknown }[] });

    const res = await match(params({ resourceType: 'Patient', name: [{ family: 'Ramanathan', given: ['Priya'] }], birthDate: '1978-06-30' }));
    expect(res.statusCode).toBe(200);
    const bundle = res.json();
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'searchset' });
    expect(bundle.entry.map((e: { resource: { id: string } }) => e.resource.id)).toEqual([a.json().id]); // never Beta's
    const [top] = bundle.entry;
    expect(top.fullUrl).toMatch(new RegExp(`/fhir/R4/Patient/${a.json().id}$`));
    expect(top.search.mode).toBe('match');
    expect(top.search.score).toBeGreaterThan(0.9);
    expect(top.search.extension).toEqual([{ url: 'http://hl7.org/fhir/StructureDefinition/match-grade', valueCode: 'certain' }]);
    expect(gpidOf(top.resource)).toBe(gpid);

    // A birth day mistyped: a weaker, graded candidate; onlyCertainMatches drops it.
    const weak = params({ resourceType: 'Patient', name: [{ family: 'Ramanathan', given: ['Priya'] }], birthDate: '1978-06-03' });
    const weakBundle = (await match(weak)).json();
    expect(weakBundle.entry.length).toBeGreaterThan(0);
    expect(['probable', 'possible']).toContain(weakBundle.entry[0].search.extension[0].valueCode);
    expect(weakBundle.entry[0].search.score).toBeLessThan(top.search.score);
    expect((await match(params(weak.parameter[0]!.resource, [{ name: 'onlyCertainMatches', valueBoolean: true }]))).json().entry).toEqual([]);
    const certainOnly = (await match(params({ resourceType: 'Patient', name: [{ family: 'Ramanathan', given: ['Priya'] }], birthDate: '1978-06-30', telecom: [{ system: 'email', value: 'priya.r@example.com' }] }, [{ name: 'onlyCertainMatches', valueBoolean: true }]))).json();
    expect(certainOnly.entry.map((e: { resource: { id: string } }) => e.resource.id)).toEqual([a.json().id]);

    // count bounds the entries (two of Alpha's Patients share the GPID now).
    const again = await fhir(t, alpha, 'POST', '/Patient', person('Priya', 'Ramanathan', '1978-06-30', 'priya.r@example.com'), { 'x-svc-source': 'provider' });
    await linked(alpha, again.json().id);
    const full = params({ resourceType: 'Patient', name: [{ family: 'Ramanathan', given: ['Priya'] }], birthDate: '1978-06-30' });
    expect((await match(full)).json().entry).toHaveLength(2);
    expect((await match(params(full.parameter[0]!.resource, [{ name: 'count', valueInteger: 1 }]))).json().entry).toHaveLength(1);

    // Bad input names the parameter; a credential without Patient search is refused.
    for (const [body, field] of [
      [{ resourceType: 'Parameters', parameter: [] }, 'resource'],
      [params({ resourceType: 'Observation' }), 'resource'],
      [params(full.parameter[0]!.resource, [{ name: 'count', valueInteger: 0 }]), 'count'],
      [params(full.parameter[0]!.resource, [{ name: 'onlyCertainMatches', valueString: 'yes' }]), 'onlyCertainMatches'],
      [params({ resourceType: 'Patient', gender: 'female' }), 'resource'],
      [{ resourceType: 'Patient' }, 'Parameters'],
    ] as const) {
      const refused = await match(body);
      expect(refused.statusCode, field).toBe(400);
      expect(refused.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ expression: [field] }] });
    }
    const writer = await apiToken(t, alphaGpid, ['cms.fhir.rest.write']);
    expect((await match(full, writer)).statusCode).toBe(403);
    // SMART scopes reach it too (the operator's own partner, with no link and no Patients: nothing).
    const smart = await apiToken(t, null, ['patient/Patient.read']);
    const smartAnswer = await match(full, smart);
    expect(smartAnswer.statusCode).toBe(200);
    expect(smartAnswer.json().entry).toEqual([]);
  });

  it('moves the GPID identifier when the registry merges the identity, and asks again after a split', async () => {
    // Two spellings far enough apart to get two GPIDs, then a steward merges them.
    const one = await fhir(t, alpha, 'POST', '/Patient', person('Aurelia', 'Vantongeren', '1962-09-14'), { 'x-svc-source': 'provider' });
    const two = await fhir(t, alpha, 'POST', '/Patient', person('Aurelie', 'Tongeren', '1962-04-09', 'a.tongeren@example.org'), { 'x-svc-source': 'provider' });
    const survivor = gpidOf(await linked(alpha, one.json().id))!;
    const duplicate = gpidOf(await linked(alpha, two.json().id))!;
    expect(duplicate).not.toBe(survivor);
    const id = identityClient(t);
    const steward = await mintToken(t, ['cms.admin', 'identity.approve', 'identity.read']);
    const requested = await id.merge({ survivor_gpid: survivor, merged_gpids: [duplicate], reason: 'manual_review' }, 'cms');
    expect(requested.statusCode).toBe(200);
    expect((await id.merge({ approve: requested.json().request_id }, 'cms', steward)).json()).toMatchObject({ status: 'APPLIED' });
    await eventually(async () => expect(gpidOf((await fhir(t, alpha, 'GET', `/Patient/${two.json().id}`)).json())).toBe(survivor));

    // The split gives the restored record back its own fingerprints; the Patients are resolved again.
    const split = await id.split({ gpid: duplicate, reason: 'false_merge_detected' }, 'cms');
    expect((await id.split({ approve: split.json().request_id }, 'cms', steward)).json()).toMatchObject({ status: 'APPLIED' });
    await eventually(async () => expect(gpidOf((await fhir(t, alpha, 'GET', `/Patient/${two.json().id}`)).json())).toBe(duplicate));
    expect(gpidOf((await fhir(t, alpha, 'GET', `/Patient/${one.json().id}`)).json())).toBe(survivor);
  });
});
