import { describe, expect, it } from 'vitest';
import { requiredBindingErrors } from './validation.js';

describe('required value-set bindings', () => {
  it('checks codes, Codings and CodeableConcepts wherever they sit: nested types, choice types, extensions, contained resources', () => {
    const errors = requiredBindingErrors({
      resourceType: 'Observation',
      status: 'final',
      code: { text: 'x' },
      valueQuantity: { value: 1, comparator: '~' },
      component: [{ code: { text: 'c' }, valueQuantity: { value: 2, comparator: '<' } }, { code: { text: 'd' }, valueQuantity: { value: 3, comparator: 'about' } }],
      extension: [{ url: 'http://example.org/x', valueQuantity: { value: 4, comparator: 'nearly' } }],
      contained: [{ resourceType: 'Patient', id: 'p', gender: 'xyz', name: [{ use: 'official' }, { use: 'nickname-ish' }] }],
      text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' },
    });
    expect(errors.map((e) => e.field).sort()).toEqual([
      'Observation.contained[0].gender',
      'Observation.contained[0].name[1].use',
      'Observation.extension[0].valueQuantity.comparator',
      'Observation.valueQuantity.comparator',
      'Observation.component[1].valueQuantity.comparator',
    ].sort());
    expect(errors.find((e) => e.field === 'Observation.contained[0].gender')!.message).toBe('"xyz" is not in the required value set http://hl7.org/fhir/ValueSet/administrative-gender');
  });

  it('passes a CodeableConcept with text only, and one coding of the value set among others', () => {
    expect(requiredBindingErrors({ resourceType: 'Patient', gender: 'female', maritalStatus: { text: 'married' } })).toEqual([]);
    expect(requiredBindingErrors({ resourceType: 'AllergyIntolerance', patient: { reference: 'Patient/p' }, clinicalStatus: { coding: [{ system: 'http://example.org', code: 'x' }, { system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical', code: 'active' }] } })).toEqual([]);
    expect(requiredBindingErrors({ resourceType: 'AllergyIntolerance', patient: { reference: 'Patient/p' }, clinicalStatus: { coding: [{ system: 'http://example.org', code: 'x' }] } }).map((e) => e.field)).toEqual(['AllergyIntolerance.clinicalStatus']);
  });
});
