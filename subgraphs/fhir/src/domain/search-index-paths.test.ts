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
  it('gives exactly the rows FHIRPath gives, on the official examples', () => {
    const all = examples();
    expect(all.length).toBeGreaterThan(1000);
    const differing = all.filter((r) => JSON.stringify(extractSearchIndex(r)) !== JSON.stringify(extractSearchIndex(r, { jsonPaths: false })));
    expect(differing.map((r) => `${r.resourceType}/${r.id}`)).toEqual([]);
  });

  it('keeps distinct tiny decimals that the FHIRPath union takes for equal', () => {
    // Medplum's union drops 1e-245 as equal to 1e-22.
    const r = JSON.parse(readFileSync(join(EXAMPLES, KNOWN_DIFFERENCE), 'utf8')) as FhirResource;
    const values = (rows: ReturnType<typeof extractSearchIndex>) => rows.quantity.filter((q) => q.param === 'combo-value-quantity').map((q) => q.value);
    expect(values(extractSearchIndex(r))).toEqual(expect.arrayContaining([1e-22, 1e-245]));
    expect(values(extractSearchIndex(r, { jsonPaths: false }))).not.toContain(1e-245);
  });
});
