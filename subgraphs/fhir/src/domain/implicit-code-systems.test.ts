import { getSearchParameterDetails } from '@medplum/core';
import { describe, expect, it } from 'vitest';
import { definitions, enumeratedValueSet, searchParametersOf } from './definitions.js';
import { codeOnlyTokenParams, implicitCodeSystem } from './implicit-code-systems.js';
import { extractSearchIndex, indexedParams } from './search-index.js';

/**
 * R4 search.html (token): a `code` element's system is implicit, the one of its value set. Checked
 * for every token parameter of every R4 resource type that selects a top-level `code` element with
 * a required binding to a value set the definitions enumerate: a resource holding the value set's
 * first code is indexed with that code's system.
 */
describe('implicit code systems of code elements', () => {
  it('indexes every required-bound top-level code of every resource type with its code system', () => {
    let checked = 0;
    for (const type of definitions().resourceTypes) {
      const params = searchParametersOf(type);
      for (const p of indexedParams(type)) {
        if (p.type !== 'token') continue;
        for (const e of getSearchParameterDetails(type, params[p.code]!).elementDefinitions ?? []) {
          const parts = e.path.split('.');
          if (parts.length !== 2 || parts[0] !== type || e.type.length !== 1 || e.type[0]!.code !== 'code' || e.binding?.strength !== 'required') continue;
          const codes = enumeratedValueSet(e.binding.valueSet!);
          if (!codes) continue;
          const [system, set] = [...codes][0]!;
          const code = [...set][0]!;
          const rows = extractSearchIndex({ resourceType: type, [parts[1]!]: e.isArray ? [code] : code }).token.filter((r) => r.param === p.code && r.code === code);
          expect(rows, `${type}.${p.code}`).toContainEqual(expect.objectContaining({ system }));
          checked++;
        }
      }
    }
    // Every resource type has at least its status-like code parameters.
    expect(checked).toBeGreaterThan(120);
  });

  it('leaves unbound codes without a system, and gives a whole-code-system value set its one system', () => {
    expect(implicitCodeSystem('OperationDefinition', 'code')).toBeNull();
    expect(implicitCodeSystem('Patient', 'gender')!('male')).toBe('http://hl7.org/fhir/administrative-gender');
    expect(implicitCodeSystem('Patient', 'gender')!('not-a-gender')).toBeNull();
    expect(implicitCodeSystem('DocumentReference', 'contenttype')!('application/pdf')).toBe('urn:ietf:bcp:13');
    // The migration touches only parameters made of such codes: never one that also holds Codings.
    const params = codeOnlyTokenParams();
    expect(params).toContainEqual(expect.objectContaining({ resourceType: 'Patient', param: 'gender' }));
    expect(params.find((p) => p.resourceType === 'Observation' && p.param === 'code')).toBeUndefined();
  });
});
