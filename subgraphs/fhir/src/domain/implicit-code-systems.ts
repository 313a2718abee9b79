import { getSearchParameterDetails } from '@medplum/core';
import { definitions, enumeratedValueSet, searchParametersOf } from './definitions.js';

/**
 * The implicit code system of `code` elements, for token search.
 *
 * R4 search.html (token): a token parameter on a `code` element has "the system ... implicit, and
 * the one defined in the value set binding". So `Patient.gender` holds codes of
 * `http://hl7.org/fhir/administrative-gender` (its required value set), and
 * `gender=http://hl7.org/fhir/administrative-gender|male` must match like `gender=male`. HAPI does
 * the same: it indexes a bound code with the system of its enumeration.
 *
 * Derived from the loaded definitions, never a table: for every element a token parameter selects
 * (Medplum's getSearchParameterDetails), when it is typed `code` with a **required** binding, its
 * value set decides the system of each code: a value set the definitions enumerate in full
 * (definitions.ts, enumeratedValueSet) gives each code the system that lists it; one whose includes
 * all name the same system (mimetypes: `urn:ietf:bcp:13`; v3 confidentiality) gives every code that
 * system. Unbound, example, preferred and extensible bindings keep the code without a system (a
 * code there may come from anywhere).
 */

/** The system a code of the element has, or null when the binding does not say. */
export type ImplicitSystem = (code: string) => string | null;

/** A value set's code systems: each with the codes it contributes, or `all` when it contributes any code. */
type SystemCodes = ReadonlyMap<string, ReadonlySet<string> | 'all'>;

const bySet = new Map<string, SystemCodes | null>();

function systemsOfValueSet(url: string): SystemCodes | null {
  const key = url.split('|')[0] ?? url;
  if (bySet.has(key)) return bySet.get(key) ?? null;
  let result: SystemCodes | null = null;
  const enumerated = enumeratedValueSet(key);
  if (enumerated) {
    result = enumerated;
  } else {
    const include = definitions().valueSets.get(key)?.compose?.include ?? [];
    const systems = new Set(include.map((i) => (i.valueSet?.length ? undefined : i.system)));
    const only = systems.size === 1 ? [...systems][0] : undefined;
    if (only) result = new Map([[only, 'all']]);
  }
  bySet.set(key, result);
  return result;
}

/** The systems of the required value sets bound to the `code` elements a token parameter selects. */
function boundSystems(resourceType: string, param: string): { sets: SystemCodes[]; onlyCodeElements: boolean } {
  const sp = searchParametersOf(resourceType)[param];
  if (!sp || sp.type !== 'token') return { sets: [], onlyCodeElements: false };
  let elements;
  try {
    elements = getSearchParameterDetails(resourceType, sp).elementDefinitions ?? [];
  } catch {
    return { sets: [], onlyCodeElements: false };
  }
  const sets: SystemCodes[] = [];
  let onlyCodeElements = elements.length > 0;
  for (const e of elements) {
    const isCode = e.type.length === 1 && e.type[0]!.code === 'code';
    if (!isCode) {
      onlyCodeElements = false;
      continue;
    }
    const valueSet = e.binding?.strength === 'required' ? e.binding.valueSet : undefined;
    const systems = valueSet ? systemsOfValueSet(valueSet) : null;
    if (systems) sets.push(systems);
    else onlyCodeElements = false;
  }
  return { sets, onlyCodeElements };
}

/** The one system that holds `code` among the value sets, or null when none or several do. */
function systemOf(sets: readonly SystemCodes[], code: string): string | null {
  let found: string | null = null;
  for (const set of sets) {
    for (const [system, codes] of set) {
      if (codes !== 'all' && !codes.has(code)) continue;
      if (found !== null && found !== system) return null;
      found = system;
    }
  }
  return found;
}

const cache = new Map<string, ImplicitSystem | null>();

/** The implicit system of the codes a token parameter indexes from `code` elements; null when none is bound. */
export function implicitCodeSystem(resourceType: string, param: string): ImplicitSystem | null {
  const key = `${resourceType}.${param}`;
  if (cache.has(key)) return cache.get(key) ?? null;
  const { sets } = boundSystems(resourceType, param);
  const result: ImplicitSystem | null = sets.length === 0 ? null : (code) => systemOf(sets, code);
  cache.set(key, result);
  return result;
}

/**
 * Token parameters whose every element is a bound `code` (so every row without a system came from
 * one), with each system and its codes (null: any code): what migration m017 fills into rows
 * indexed before the implicit system was.
 */
export function codeOnlyTokenParams(): { resourceType: string; param: string; systems: { system: string; codes: string[] | null }[] }[] {
  const out: { resourceType: string; param: string; systems: { system: string; codes: string[] | null }[] }[] = [];
  for (const resourceType of definitions().resourceTypes) {
    for (const param of Object.keys(searchParametersOf(resourceType))) {
      const { sets, onlyCodeElements } = boundSystems(resourceType, param);
      if (!onlyCodeElements || sets.length === 0) continue;
      const systems = new Map<string, Set<string> | null>();
      for (const set of sets) {
        for (const [system, codes] of set) {
          const known = systems.get(system);
          if (codes === 'all' || known === null) systems.set(system, null);
          else systems.set(system, new Set([...(known ?? []), ...codes]));
        }
      }
      // A code listed by several systems has no one implicit system: left without.
      const counts = new Map<string, number>();
      for (const codes of systems.values()) for (const c of codes ?? []) counts.set(c, (counts.get(c) ?? 0) + 1);
      if ([...systems.values()].some((c) => c === null) && systems.size > 1) continue;
      out.push({ resourceType, param, systems: [...systems].map(([system, codes]) => ({ system, codes: codes ? [...codes].filter((c) => counts.get(c) === 1) : null })) });
    }
  }
  return out;
}
