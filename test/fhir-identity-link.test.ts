import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { eventsOf, eventually } from './support/identity.js';

/**
 * The identity link of FHIR Patients: a Patient written with X-Svc-Source gets its GPID from the
 * identity registry as an identifier (through internal events, never through a call between
 * subgraphs); GraphQL federates both ways (FhirPatient.identity, Identity.patients); and
 * Patient/$match is answered by identity resolution, in the caller's view only.
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
    }, 10_000);

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
    expect(first.meta.versionId).toBe('2');

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

  it('never logs the internal hand-off events', async () => {
    const created = await fhir(t, alpha, 'POST', '/Patient', person('Internal', 'Handoff', '1970-01-01'), { 'x-svc-source': 'lake' });
    await linked(alpha, created.json().id);
    await eventually(async () => expect((await eventsOf(t, ['fhir.resource.updated'])).some((e) => e.data['resource_id'] === created.json().id)).toBe(true));
    const logged = await eventsOf(t, ['fhir.internal.patient_identity_requested', 'identity.internal.fhir_patient_linked']);
    expect(logged).toEqual([]);
  });
});
