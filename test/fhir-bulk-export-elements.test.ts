import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PATIENCE_MS } from './support/patience.js';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

interface Manifest {
  output: { type: string; url: string; count: number }[];
}

const ASYNC = { prefer: 'respond-async' };
const SUBSETTED = { system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationValue', code: 'SUBSETTED' };

/** Bulk Data $export `_elements` (root elements kept, mandatory ones too, tagged SUBSETTED) and `patient` (Patient and Group level). */
describe('FHIR $export _elements and patient', () => {
  let t: TestSystem;
  let exporter: string;
  const ids: Record<string, string> = {};

  /** Kick off, wait for the manifest, and answer each file's NDJSON lines as text, by type. */
  async function exportOf(response: { statusCode: number; body: string; headers: Record<string, unknown> }): Promise<Record<string, string[]>> {
    expect(response.statusCode, response.body).toBe(202);
    const status = new URL(String(response.headers['content-location'])).pathname;
    let manifest: Manifest | undefined;
    await vi.waitFor(
      async () => {
        const res = await t.request({ url: status, token: exporter });
        expect(res.statusCode, res.body).toBe(200);
        manifest = res.json() as Manifest;
      },
      // Twice the patience: the first export also starts the job thread (seconds of a core).
      { timeout: 2 * PATIENCE_MS, interval: 50 },
    );
    const out: Record<string, string[]> = {};
    for (const file of manifest!.output) {
      const res = await t.request({ url: new URL(file.url).pathname, token: exporter });
      (out[file.type] ??= []).push(...res.body.split('\n').filter(Boolean));
    }
    return out;
  }
  const idsOf = (lines: string[] | undefined) => (lines ?? []).map((l) => (JSON.parse(l) as { id: string }).id).sort();
  const post = (path: string, parameter: Record<string, unknown>[]) => fhir(t, exporter, 'POST', path, { resourceType: 'Parameters', parameter }, ASYNC);

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_FHIR_EXPORT_PAGE_SIZE: '2' });
    const gpid = await registerPartner(t, 'Export Elements');
    const held = (await t.graphql<{ partner: { grantedScopes: string[] } }>('query($g: ID!) { partner(gpid: $g) { grantedScopes } }', { g: gpid })).data!.partner.grantedScopes;
    expect((await t.request({ method: 'PUT', url: `/cms/partners/${gpid}/scopes`, body: { scopes: [...held, 'system/*.read'] } })).statusCode).toBe(200);
    exporter = await apiToken(t, gpid, ['system/*.read']);
    const writer = await apiToken(t, gpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    const create = async (key: string, text: string) => {
      const res = await t.request({ method: 'POST', url: `/fhir/R4/${(JSON.parse(text) as { resourceType: string }).resourceType}`, token: writer, headers: { 'content-type': 'application/fhir+json' }, body: text });
      expect(res.statusCode, res.body).toBe(201);
      ids[key] = res.json().id;
    };
    await create('p1', JSON.stringify({ resourceType: 'Patient', gender: 'female', birthDate: '1970-01-01', _birthDate: { extension: [{ url: 'http://example.org/x', valueString: 'y' }] }, name: [{ family: 'One' }] }));
    await create('p2', JSON.stringify({ resourceType: 'Patient', gender: 'male', name: [{ family: 'Two' }] }));
    // 72.50: the export keeps the number as written, subsetted or not.
    await create('o1', `{"resourceType":"Observation","status":"final","code":{"text":"weight"},"subject":{"reference":"Patient/${ids['p1']}"},"effectiveDateTime":"2024-01-01","valueQuantity":{"value":72.50,"unit":"kg"}}`);
    await create('o2', JSON.stringify({ resourceType: 'Observation', status: 'final', code: { text: 'weight' }, subject: { reference: `Patient/${ids['p2']}` } }));
    await create('g', JSON.stringify({ resourceType: 'Group', type: 'person', actual: true, member: [{ entity: { reference: `Patient/${ids['p1']}` } }, { entity: { reference: `Patient/${ids['p2']}` } }] }));
  });
  afterAll(() => t?.close());

  it('keeps only the listed root elements, the mandatory ones and what every resource keeps, tagged SUBSETTED', async () => {
    const out = await exportOf(await fhir(t, exporter, 'GET', '/$export?_type=Patient,Observation&_elements=Patient.birthDate,Observation.value', undefined, ASYNC));
    const p1 = JSON.parse(out['Patient']!.find((l) => l.includes(ids['p1']!))!) as Record<string, unknown>;
    expect(Object.keys(p1).sort()).toEqual(['_birthDate', 'birthDate', 'id', 'meta', 'resourceType']);
    expect((p1['meta'] as { tag: unknown[] }).tag).toEqual([SUBSETTED]);
    const o1 = out['Observation']!.find((l) => l.includes(ids['o1']!))!;
    // status and code are mandatory (1..1): kept; the choice value[x] is kept as valueQuantity, its number exactly as written.
    expect(Object.keys(JSON.parse(o1) as object).sort()).toEqual(['code', 'id', 'meta', 'resourceType', 'status', 'valueQuantity']);
    expect(o1).toContain('"value":72.50');

    // An element without a type applies to every exported type that has it; the others are exported whole.
    const bare = await exportOf(await fhir(t, exporter, 'GET', '/$export?_type=Patient,Group&_elements=gender', undefined, ASYNC));
    expect(Object.keys(JSON.parse(bare['Patient']![0]!) as object).sort()).toEqual(['gender', 'id', 'meta', 'resourceType']);
    expect(JSON.parse(bare['Group']![0]!)).toHaveProperty('member');
    expect(JSON.parse(bare['Group']![0]!).meta.tag).toBeUndefined();
  });

  it('refuses _elements that are not root elements of an exported type, naming _elements', async () => {
    for (const elements of ['Patient.name.family', 'Encounter.status', 'nonsense', 'Patient.nonsense']) {
      const res = await fhir(t, exporter, 'GET', `/$export?_type=Patient,Observation&_elements=${elements}`, undefined, ASYNC);
      expect(res.statusCode, elements).toBe(400);
      expect(res.json().issue[0].expression).toEqual(['_elements']);
    }
  });

  it('exports only the compartments of the patients named by patient, at Patient and Group level', async () => {
    const one = await exportOf(await post('/Patient/$export', [{ name: '_type', valueString: 'Patient,Observation' }, { name: 'patient', valueReference: { reference: `Patient/${ids['p1']}` } }]));
    expect(idsOf(one['Patient'])).toEqual([ids['p1']]);
    expect(idsOf(one['Observation'])).toEqual([ids['o1']]);
    const viaGet = await exportOf(await fhir(t, exporter, 'GET', `/Patient/$export?_type=Observation&patient=Patient/${ids['p2']}`, undefined, ASYNC));
    expect(idsOf(viaGet['Observation'])).toEqual([ids['o2']]);
    // Group level: the members named by patient only.
    const group = await exportOf(await post(`/Group/${ids['g']}/$export`, [{ name: '_type', valueString: 'Patient' }, { name: 'patient', valueReference: { reference: `Patient/${ids['p2']}` } }]));
    expect(idsOf(group['Patient'])).toEqual([ids['p2']]);

    const system = await post('/$export', [{ name: 'patient', valueReference: { reference: `Patient/${ids['p1']}` } }]);
    expect(system.statusCode).toBe(400);
    expect(system.json().issue[0].expression).toEqual(['patient']);
    const bare = await fhir(t, exporter, 'GET', `/Patient/$export?patient=${ids['p1']}`, undefined, ASYNC);
    expect(bare.statusCode).toBe(400);
    expect(bare.json().issue[0].expression).toEqual(['patient']);
    const noReference = await post('/Patient/$export', [{ name: 'patient', valueString: `Patient/${ids['p1']}` }]);
    expect(noReference.statusCode).toBe(400);
    expect(noReference.json().issue[0].expression).toEqual(['Parameters.parameter[0]']);
  });
});
