import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

interface Bundle {
  entry?: { resource: { resourceType: string; id: string }; search: { mode: string } }[];
}

const GRANT = 'mutation G($o: String!, $g: String!, $t: [String!]) { fhirSharingRuleGrant(ownerGpid: $o, granteeGpid: $g, resourceTypes: $t) { id ownerGpid granteeGpid resourceTypes } }';
const REVOKE = 'mutation R($id: ID!) { fhirSharingRuleRevoke(id: $id) }';
const codeOf = (errors: { extensions?: Record<string, unknown> }[] | undefined) => errors?.[0]?.extensions?.['code'];

/**
 * The sharing rule between partners: without a rule a partner never reads another's resources;
 * an operator's rule "A may read B's resources of types T" opens read, search, chains, includes
 * and $export to A for those types, one way, and never writes.
 */
describe('FHIR sharing rules between partners', () => {
  let t: TestSystem;
  let aGpid: string;
  let bGpid: string;
  let a: string;
  let b: string;
  let c: string;
  const ids: Record<string, string> = {};

  const entries = async (token: string, query: string): Promise<string[]> => {
    const res = await fhir(t, token, 'GET', query);
    expect(res.statusCode, res.body).toBe(200);
    return ((res.json() as Bundle).entry ?? []).map((e) => `${e.search.mode} ${e.resource.resourceType}/${e.resource.id}`).sort();
  };
  const ref = (key: string, type: string) => `${type}/${ids[key]!}`;

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    aGpid = await registerPartner(t, 'Sharing Grantee');
    bGpid = await registerPartner(t, 'Sharing Owner');
    // The grantee also exports: the operator widens its grant with system/*.read first.
    const held = (await t.graphql<{ partner: { grantedScopes: string[] } }>('query($g: ID!) { partner(gpid: $g) { grantedScopes } }', { g: aGpid })).data!.partner.grantedScopes;
    const widened = await t.request({ method: 'PUT', url: `/cms/partners/${aGpid}/scopes`, body: { scopes: [...held, 'system/*.read'] } });
    expect(widened.statusCode, widened.body).toBe(200);
    a = await apiToken(t, aGpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'system/*.read']);
    b = await apiToken(t, bGpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    c = await apiToken(t, await registerPartner(t, 'Sharing Stranger'), ['cms.fhir.r4.read']);
    const create = async (token: string, key: string, resource: Record<string, unknown>) => {
      const res = await fhir(t, token, 'POST', `/${resource['resourceType'] as string}`, resource);
      expect(res.statusCode, res.body).toBe(201);
      ids[key] = res.json().id;
    };
    await create(b, 'org', { resourceType: 'Organization', name: 'Owner Hospital' });
    await create(b, 'pb', { resourceType: 'Patient', name: [{ family: 'Shared' }], managingOrganization: { reference: ref('org', 'Organization') } });
    await create(b, 'ob', { resourceType: 'Observation', status: 'final', code: { text: 'owner obs' }, subject: { reference: ref('pb', 'Patient') } });
    await create(a, 'pa', { resourceType: 'Patient', name: [{ family: 'Own' }] });
    await create(a, 'oa', { resourceType: 'Observation', status: 'final', code: { text: 'grantee obs' }, subject: { reference: ref('pb', 'Patient') } });
  });
  afterAll(() => t?.close());

  it('without a rule: 404 on read, nothing in search, chains or includes', async () => {
    expect((await fhir(t, a, 'GET', `/${ref('pb', 'Patient')}`)).statusCode).toBe(404);
    expect(await entries(a, '/Patient?family=shared')).toEqual([]);
    expect(await entries(a, '/Observation?subject:Patient.family=shared')).toEqual([]);
    expect(await entries(a, `/Observation?_id=${ids['oa']!}&_include=Observation:subject`)).toEqual([`match ${ref('oa', 'Observation')}`]);
  });

  it('only an operator manages rules, with typed errors naming the field', async () => {
    expect(codeOf((await t.graphql(GRANT, { o: bGpid, g: aGpid, t: ['Patient'] }, a)).errors)).toBe('FORBIDDEN');
    const badType = await t.graphql(GRANT, { o: bGpid, g: aGpid, t: ['Nonsense'] });
    expect(codeOf(badType.errors)).toBe('BAD_REQUEST');
    expect(JSON.stringify(badType.errors)).toContain('resourceTypes');
    expect(codeOf((await t.graphql(GRANT, { o: aGpid, g: aGpid, t: null })).errors)).toBe('BAD_REQUEST');
  });

  it("with a rule: the grantee reads the owner's shared types everywhere reads go, one way, never writes", async () => {
    const granted = await t.graphql<{ fhirSharingRuleGrant: { id: string; resourceTypes: string[] } }>(GRANT, { o: bGpid, g: aGpid, t: ['Patient', 'Observation'] });
    expect(granted.errors).toBeUndefined();
    expect(granted.data!.fhirSharingRuleGrant.resourceTypes).toEqual(['Observation', 'Patient']);

    expect((await fhir(t, a, 'GET', `/${ref('pb', 'Patient')}`)).statusCode).toBe(200);
    expect((await fhir(t, a, 'GET', `/${ref('pb', 'Patient')}/_history/1`)).statusCode).toBe(200);
    expect(await entries(a, '/Patient?family=shared')).toEqual([`match ${ref('pb', 'Patient')}`]);
    expect(await entries(a, '/Observation?subject:Patient.family=shared')).toEqual([`match ${ref('ob', 'Observation')}`, `match ${ref('oa', 'Observation')}`].sort());
    expect(await entries(a, `/Observation?_id=${ids['oa']!}&_include=Observation:subject`)).toEqual([`match ${ref('oa', 'Observation')}`, `include ${ref('pb', 'Patient')}`].sort());
    expect(await entries(a, `/Patient?_id=${ids['pb']!}&_revinclude=Observation:subject`)).toEqual([`match ${ref('pb', 'Patient')}`, `include ${ref('oa', 'Observation')}`, `include ${ref('ob', 'Observation')}`].sort());
    // Organization is not shared: still a 404, and an include does not reach it.
    expect((await fhir(t, a, 'GET', `/${ref('org', 'Organization')}`)).statusCode).toBe(404);
    expect(await entries(a, `/Patient?_id=${ids['pb']!}&_include=Patient:organization`)).toEqual([`match ${ref('pb', 'Patient')}`]);

    // Readable, not writable: a write reaches only the grantee's own resources.
    const current = (await fhir(t, a, 'GET', `/${ref('pb', 'Patient')}`)).json();
    expect((await fhir(t, a, 'PUT', `/${ref('pb', 'Patient')}`, { ...current, active: true })).statusCode).toBe(404);
    expect((await fhir(t, a, 'DELETE', `/${ref('pb', 'Patient')}`)).statusCode).toBe(404);
    expect((await fhir(t, a, 'DELETE', '/Patient?family=shared')).statusCode).toBe(204);
    expect((await fhir(t, b, 'GET', `/${ref('pb', 'Patient')}`)).json().meta.versionId).toBe('1');
    // One way, and only for the grantee.
    expect((await fhir(t, b, 'GET', `/${ref('pa', 'Patient')}`)).statusCode).toBe(404);
    expect((await fhir(t, c, 'GET', `/${ref('pb', 'Patient')}`)).statusCode).toBe(404);

    // $export in the grantee's read view.
    const kicked = await fhir(t, a, 'GET', '/$export?_type=Patient', undefined, { prefer: 'respond-async' });
    expect(kicked.statusCode, kicked.body).toBe(202);
    const status = new URL(kicked.headers['content-location'] as string).pathname;
    let manifest: { output: { url: string; count: number }[] } | undefined;
    await vi.waitFor(
      async () => {
        const res = await t.request({ url: status, token: a });
        expect(res.statusCode).toBe(200);
        manifest = res.json();
      },
      { timeout: 30_000, interval: 100 },
    );
    const file = await t.request({ url: new URL(manifest!.output[0]!.url).pathname, token: a });
    expect(file.body.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id).sort()).toEqual([ids['pa'], ids['pb']].sort());

    // Revoked: back to 404.
    const rules = await t.graphql<{ fhirSharingRules: { id: string }[] }>('query($g: String) { fhirSharingRules(granteeGpid: $g) { id } }', { g: aGpid });
    expect(rules.data!.fhirSharingRules).toHaveLength(1);
    expect((await t.graphql(REVOKE, { id: rules.data!.fhirSharingRules[0]!.id })).errors).toBeUndefined();
    expect((await fhir(t, a, 'GET', `/${ref('pb', 'Patient')}`)).statusCode).toBe(404);
  });
});
