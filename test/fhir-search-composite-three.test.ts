import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

/**
 * Three-component composites: MolecularSequence's coordinate parameters (chromosome or reference
 * sequence id, start, end), all three parts matched on the same variant (or reference sequence).
 */
describe('FHIR R4 three-component composite search parameters', () => {
  let t: TestSystem;
  let token: string;
  const ids: Record<string, string> = {};

  const found = async (query: string): Promise<string[]> => {
    const res = await fhir(t, token, 'GET', query);
    expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    return ((res.json().entry ?? []) as { resource: { id: string } }[]).map((e) => e.resource.id).sort();
  };
  const names = (...keys: string[]) => keys.map((k) => ids[k]!).sort();

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    token = await apiToken(t, await registerPartner(t, 'Genomics Lab'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    // R4 msq-5/msq-6: a chromosome comes with its genome build, and a reference sequence is named one way only.
    const sequence = (reference: { chromosome: string } | { refSeq: string }, window: [number, number], variants: [number, number][]) => ({
      resourceType: 'MolecularSequence',
      type: 'dna',
      coordinateSystem: 0,
      referenceSeq: {
        ...('chromosome' in reference
          ? { chromosome: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/chromosome-human', code: reference.chromosome }] }, genomeBuild: 'GRCh38' }
          : { referenceSeqId: { coding: [{ system: 'http://www.ncbi.nlm.nih.gov/nuccore', code: reference.refSeq }] } }),
        strand: 'watson',
        windowStart: window[0],
        windowEnd: window[1],
      },
      variant: variants.map(([start, end]) => ({ start, end, observedAllele: 'T', referenceAllele: 'G' })),
    });
    const create = async (key: string, resource: Record<string, unknown>) => {
      const res = await fhir(t, token, 'POST', `/${resource['resourceType'] as string}`, resource);
      expect(res.statusCode, res.body).toBe(201);
      ids[key] = res.json().id;
    };
    // seqA: chromosome 1, variants at 22125503-22125504 and 22125900-22125901.
    await create('seqA', sequence({ chromosome: '1' }, [22125500, 22126000], [[22125503, 22125504], [22125900, 22125901]]));
    // seqB: chromosome 2, a variant at the same positions as seqA's first.
    await create('seqB', sequence({ chromosome: '2' }, [22125500, 22125600], [[22125503, 22125504]]));
    // seqC: named by its reference sequence id.
    await create('seqC', sequence({ refSeq: 'NC_000001.11' }, [22125500, 22125600], [[22125503, 22125504]]));
  });
  afterAll(() => t?.close());

  it('matches chromosome, start and end of one variant together', async () => {
    expect(await found('/MolecularSequence?chromosome-variant-coordinate=1$gt22125500$lt22125510')).toEqual(names('seqA'));
    expect(await found('/MolecularSequence?chromosome-variant-coordinate=2$gt22125500$lt22125510')).toEqual(names('seqB'));
    // A start from one variant and an end from another never combine.
    expect(await found('/MolecularSequence?chromosome-variant-coordinate=1$ge22125900$lt22125600')).toEqual([]);
    expect(await found('/MolecularSequence?chromosome-variant-coordinate=1$gt22125500$lt22126000,2$gt22125000$lt22125510')).toEqual(names('seqA', 'seqB'));
    expect(await found('/MolecularSequence?referenceseqid-variant-coordinate=NC_000001.11$gt22125500$lt22125510')).toEqual(names('seqC'));
    expect(await found('/MolecularSequence?referenceseqid-variant-coordinate=NC_000001.11$gt22125600$lt22125510')).toEqual([]);
  });

  it('matches the reference sequence window, and refuses a value without three parts', async () => {
    expect(await found('/MolecularSequence?chromosome-window-coordinate=1$le22125500$ge22126000')).toEqual(names('seqA'));
    expect(await found('/MolecularSequence?referenceseqid-window-coordinate=NC_000001.11$le22125500$ge22125600')).toEqual(names('seqC'));
    expect(await found('/MolecularSequence?referenceseqid-window-coordinate=NC_000001.11$le22125500$ge22126000')).toEqual([]);
    const bad = await fhir(t, token, 'GET', '/MolecularSequence?chromosome-window-coordinate=1$22125500');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issue[0].expression).toEqual(['chromosome-window-coordinate']);
    const cs = (await fhir(t, null, 'GET', '/metadata')).json() as { rest: { resource: { type: string; searchParam: { name: string }[] }[] }[] };
    const params = cs.rest[0]!.resource.find((r) => r.type === 'MolecularSequence')!.searchParam.map((p) => p.name);
    expect(params).toEqual(expect.arrayContaining(['chromosome-variant-coordinate', 'referenceseqid-window-coordinate']));
  });
});
