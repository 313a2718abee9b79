import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

interface Bundle {
  total?: number;
  link: { relation: string; url: string }[];
  entry?: { fullUrl: string; resource: { resourceType: string; id: string; [k: string]: unknown }; search: { mode: string } }[];
}

/**
 * Search across references: chaining (one and two levels, typed and untyped), _has, the
 * :identifier modifier, _include and _revinclude (with :iterate), _summary=true, and tenancy on
 * everything a chain, _has or include reaches.
 */
describe('FHIR R4 search across references', () => {
  let t: TestSystem;
  let alpha: string;
  let beta: string;
  const ids: Record<string, string> = {};

  const search = async (token: string, query: string, headers: Record<string, string> = {}): Promise<Bundle> => {
    const res = await fhir(t, token, 'GET', query, undefined, headers);
    expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    return res.json() as Bundle;
  };
  const matches = async (query: string, token = alpha) => ((await search(token, query)).entry ?? []).filter((e) => e.search.mode === 'match').map((e) => e.resource.id).sort();
  const entries = async (query: string, token = alpha) => ((await search(token, query)).entry ?? []).map((e) => `${e.search.mode} ${e.resource.resourceType}/${e.resource.id}`).sort();
  const names = (...keys: string[]) => keys.map((k) => ids[k]!).sort();
  const ref = (key: string, type: string) => `${type}/${ids[key]!}`;

  beforeAll(async () => {
    // Many searches a second: the burst limit is not what this file tests.
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    alpha = await apiToken(t, await registerPartner(t, 'Alpha Refs'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    beta = await apiToken(t, await registerPartner(t, 'Beta Refs'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    const create = async (token: string, key: string, resource: Record<string, unknown>) => {
      const res = await fhir(t, token, 'POST', `/${resource['resourceType'] as string}`, resource);
      expect(res.statusCode, res.body).toBe(201);
      ids[key] = res.json().id;
    };
    const code = (c: string) => ({ coding: [{ system: 'http://loinc.org', code: c }] });
    await create(alpha, 'org', { resourceType: 'Organization', name: 'Acme Hospital' });
    await create(alpha, 'doc', { resourceType: 'Practitioner', name: [{ family: 'House' }] });
    await create(alpha, 'pa', { resourceType: 'Patient', name: [{ family: 'Alvarez' }], managingOrganization: { reference: ref('org', 'Organization') }, generalPractitioner: [{ reference: ref('doc', 'Practitioner') }], gender: 'female', maritalStatus: { text: 'Married' }, deceasedBoolean: false });
    await create(alpha, 'pb', { resourceType: 'Patient', name: [{ family: 'Brown' }] });
    await create(beta, 'px', { resourceType: 'Patient', name: [{ family: 'Xavier' }] });
    await create(alpha, 'o1', { resourceType: 'Observation', status: 'final', code: code('8867-4'), subject: { reference: ref('pa', 'Patient') } });
    await create(alpha, 'o2', { resourceType: 'Observation', status: 'final', code: code('1234-5'), subject: { reference: ref('pb', 'Patient') } });
    await create(alpha, 'o3', { resourceType: 'Observation', status: 'final', code: code('1234-5'), subject: { identifier: { system: 'urn:mrn', value: 'M-9' } } });
    // Alpha refers to Beta's patient: neither a chain nor an include may reach it.
    await create(alpha, 'o4', { resourceType: 'Observation', status: 'final', code: code('5555-5'), subject: { reference: ref('px', 'Patient') } });
    // Beta refers to Alpha's patient: Alpha's _has and _revinclude must not see it.
    await create(beta, 'ox', { resourceType: 'Observation', status: 'final', code: code('9999-9'), subject: { reference: ref('pa', 'Patient') } });
  });
  afterAll(() => t?.close());

  it('chains through a reference, typed or not, one or two levels, only to resources the caller sees', async () => {
    expect(await matches('/Observation?subject:Patient.name=alvarez')).toEqual(names('o1'));
    expect(await matches('/Observation?subject.family=brown')).toEqual(names('o2'));
    expect(await matches('/Observation?patient.organization.name=acme')).toEqual(names('o1'));
    expect(await matches('/Observation?subject:Patient.general-practitioner:Practitioner.family=house&code=8867-4')).toEqual(names('o1'));
    expect(await matches('/Observation?subject:Patient.name=xavier')).toEqual([]);
    expect(await matches('/Observation?subject:Patient.name=xavier', beta)).toEqual([]);
    const strict = await fhir(t, alpha, 'GET', '/Observation?subject:Patient.nonsense=1', undefined, { prefer: 'handling=strict' });
    expect(strict.statusCode).toBe(400);
    expect(strict.json().issue[0].expression).toEqual(['subject:Patient.nonsense']);
  });

  it('_has finds resources referred to by matching resources of the caller only', async () => {
    expect(await matches('/Patient?_has:Observation:subject:code=8867-4')).toEqual(names('pa'));
    expect(await matches('/Patient?_has:Observation:patient:code=1234-5')).toEqual(names('pb'));
    expect(await matches('/Patient?_has:Observation:subject:code=9999-9')).toEqual([]);
    expect(await matches('/Organization?_has:Patient:organization:_has:Observation:subject:code=8867-4')).toEqual(names('org'));
  });

  it(':identifier matches Reference.identifier', async () => {
    expect(await matches('/Observation?subject:identifier=urn:mrn|M-9')).toEqual(names('o3'));
    expect(await matches('/Observation?subject:identifier=M-9')).toEqual(names('o3'));
    expect(await matches('/Observation?subject:identifier=urn:mrn|other')).toEqual([]);
  });

  it('_include and _revinclude add the referenced and referring resources, with :iterate, within the tenancy', async () => {
    const bundle = await search(alpha, '/Observation?code=8867-4&_include=Observation:subject');
    expect(bundle.total).toBe(1);
    expect(bundle.entry!.map((e) => `${e.search.mode} ${e.fullUrl}`)).toEqual([`match ${t.config.publicUrl}/fhir/R4/${ref('o1', 'Observation')}`, `include ${t.config.publicUrl}/fhir/R4/${ref('pa', 'Patient')}`]);

    expect(await entries('/Observation?code=8867-4&_include=Observation:subject&_include:iterate=Patient:organization')).toEqual(
      [`match ${ref('o1', 'Observation')}`, `include ${ref('pa', 'Patient')}`, `include ${ref('org', 'Organization')}`].sort(),
    );
    expect(await entries('/Observation?code=8867-4&_include=Observation:subject:Practitioner')).toEqual([`match ${ref('o1', 'Observation')}`]);
    expect(await entries(`/Observation?_id=${ids['o4']}&_include=Observation:subject`)).toEqual([`match ${ref('o4', 'Observation')}`]);

    expect(await entries(`/Patient?_id=${ids['pa']}&_revinclude=Observation:subject`)).toEqual([`match ${ref('pa', 'Patient')}`, `include ${ref('o1', 'Observation')}`].sort());
    expect(await entries(`/Organization?_id=${ids['org']}&_revinclude=Patient:organization&_revinclude:iterate=Observation:subject`)).toEqual(
      [`match ${ref('org', 'Organization')}`, `include ${ref('pa', 'Patient')}`, `include ${ref('o1', 'Observation')}`].sort(),
    );
    const bad = await fhir(t, alpha, 'GET', '/Observation?_include=Patient:organization', undefined, { prefer: 'handling=strict' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issue[0].expression).toEqual(['_include']);
  });

  it('_include=* and _revinclude=* follow every reference parameter, within the tenancy', async () => {
    expect(await entries(`/Patient?_id=${ids['pa']}&_include=*`)).toEqual([`match ${ref('pa', 'Patient')}`, `include ${ref('org', 'Organization')}`, `include ${ref('doc', 'Practitioner')}`].sort());
    // Beta's Observation ox refers to pa too, but Alpha does not see it.
    expect(await entries(`/Patient?_id=${ids['pa']}&_revinclude=*`)).toEqual([`match ${ref('pa', 'Patient')}`, `include ${ref('o1', 'Observation')}`].sort());
    expect(await entries(`/Organization?_id=${ids['org']}&_revinclude=*`)).toEqual([`match ${ref('org', 'Organization')}`, `include ${ref('pa', 'Patient')}`].sort());
    expect(await entries(`/Observation?_id=${ids['o4']}&_include=*`)).toEqual([`match ${ref('o4', 'Observation')}`]);
    const self = (await search(alpha, `/Patient?_id=${ids['pa']}&_include=*`)).link.find((l) => l.relation === 'self')!.url;
    expect(new URL(self).searchParams.get('_include')).toBe('*');
    const iterate = await fhir(t, alpha, 'GET', '/Patient?_include:iterate=*', undefined, { prefer: 'handling=strict' });
    expect(iterate.statusCode).toBe(400);
    expect(iterate.json().issue[0].expression).toEqual(['_include:iterate']);
  });

  it('_summary=true keeps the summary elements only, tagged SUBSETTED', async () => {
    const bundle = await search(alpha, `/Patient?_id=${ids['pa']}&_summary=true`);
    const patient = bundle.entry![0]!.resource;
    expect(patient).toMatchObject({ resourceType: 'Patient', id: ids['pa'], name: [{ family: 'Alvarez' }], gender: 'female', deceasedBoolean: false });
    expect(patient['maritalStatus']).toBeUndefined();
    expect(patient['generalPractitioner']).toBeUndefined();
    expect((patient['meta'] as { tag: { code: string }[] }).tag).toContainEqual(expect.objectContaining({ code: 'SUBSETTED' }));
  });
});
