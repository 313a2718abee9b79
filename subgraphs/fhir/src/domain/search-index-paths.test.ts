import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractSearchIndex } from './search-index.js';
import type { FhirResource } from './validation.js';

const require = createRequire(import.meta.url);
const EXAMPLES = dirname(require.resolve('hl7.fhir.r4.examples/package.json'));
/** The one example where the two differ, on purpose (the second test). */
const KNOWN_DIFFERENCE = 'Observation-decimal.json';

/**
 * Every 4th example of the official R4 set (1,300 resources of 140 types), in name order; the whole
 * set (5,306) agrees too but for the example below, and takes four times as long.
 */
function examples(): FhirResource[] {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json') && f !== 'package.json' && f !== KNOWN_DIFFERENCE).sort();
  return files.filter((_f, i) => i % 4 === 0).flatMap((f) => {
    try {
      const r = JSON.parse(readFileSync(join(EXAMPLES, f), 'utf8')) as FhirResource;
      return typeof r.resourceType === 'string' ? [r] : [];
    } catch {
      return [];
    }
  });
}

describe('search index read straight from the JSON', () => {
  it('gives exactly the rows FHIRPath gives, on the official examples (composite rows: below)', () => {
    const all = examples();
    expect(all.length).toBeGreaterThan(1000);
    const differing = all.filter((r) => {
      const { composite: _json, ...json } = extractSearchIndex(r);
      const { composite: _fhirPath, ...fhirPath } = extractSearchIndex(r, { jsonPaths: false });
      return JSON.stringify(json) !== JSON.stringify(fhirPath);
    });
    expect(differing.map((r) => `${r.resourceType}/${r.id}`)).toEqual([]);
  });

  it('gives composite rows FHIRPath gives, but for the values of another type than a component\'s as(Type) names', () => {
    // Medplum's FHIRPath ignores the type in the function form `value.as(CodeableConcept)`: it
    // indexes a Quantity under code-value-concept, a CodeableConcept's text under code-value-string.
    const all = examples();
    const extra = all.flatMap((r) => {
      const fhirPath = new Set(extractSearchIndex(r, { jsonPaths: false }).composite.map((row) => JSON.stringify(row)));
      return extractSearchIndex(r).composite.filter((row) => !fhirPath.has(JSON.stringify(row)));
    });
    expect(extra).toEqual([]);
    // Where the cast type is the only one that gives rows (a quantity component needs a number), nothing is dropped.
    const quantityRows = (rows: ReturnType<typeof extractSearchIndex>) => rows.composite.filter((row) => row.param.endsWith('-quantity'));
    expect(all.filter((r) => JSON.stringify(quantityRows(extractSearchIndex(r))) !== JSON.stringify(quantityRows(extractSearchIndex(r, { jsonPaths: false })))).map((r) => r.id)).toEqual([]);
    expect(all.flatMap((r) => quantityRows(extractSearchIndex(r))).length).toBeGreaterThan(10);
    const bmi = JSON.parse(readFileSync(join(EXAMPLES, 'Observation-bmi.json'), 'utf8')) as FhirResource;
    const params = (rows: ReturnType<typeof extractSearchIndex>) => [...new Set(rows.composite.map((row) => row.param))].sort();
    expect(params(extractSearchIndex(bmi, { jsonPaths: false }))).toEqual(['code-value-concept', 'code-value-quantity', 'code-value-string', 'combo-code-value-concept', 'combo-code-value-quantity']);
    expect(params(extractSearchIndex(bmi))).toEqual(['code-value-quantity', 'combo-code-value-quantity']);
    const gender = JSON.parse(readFileSync(join(EXAMPLES, 'Observation-clinical-gender.json'), 'utf8')) as FhirResource;
    expect(extractSearchIndex(gender).composite.filter((row) => row.param === 'code-value-string')).toEqual([]);
    expect(extractSearchIndex(gender).composite.filter((row) => row.param === 'code-value-concept').map((row) => row.c1_code)).toEqual(['191788006']);
  });

  it('keeps distinct tiny decimals that the FHIRPath union takes for equal', () => {
    // Medplum's union drops 1e-245 as equal to 1e-22.
    const r = JSON.parse(readFileSync(join(EXAMPLES, KNOWN_DIFFERENCE), 'utf8')) as FhirResource;
    const values = (rows: ReturnType<typeof extractSearchIndex>) => rows.quantity.filter((q) => q.param === 'combo-value-quantity').map((q) => q.value);
    expect(values(extractSearchIndex(r))).toEqual(expect.arrayContaining([1e-22, 1e-245]));
    expect(values(extractSearchIndex(r, { jsonPaths: false }))).not.toContain(1e-245);
  });
});
