import { describe, expect, it } from 'vitest';
import { CAPABILITIES, graphqlTwin } from './capabilities.js';

describe('graphqlTwin', () => {
  it('finds the capability of an exact root or nested field', () => {
    expect(graphqlTwin('Mutation.portalLogin')).toBe(CAPABILITIES['partner.login']);
    expect(graphqlTwin('Query.partner.baaSignatures')).toBe(CAPABILITIES['legal.baa.list']);
  });

  it('lets an exact entry win over a prefix, and a prefix cover every FHIR field', () => {
    expect(graphqlTwin('Query.fhirCapabilityStatement')).toBe(CAPABILITIES['fhir.metadata']);
    for (const field of ['Query.fhirRead', 'Query.fhirPatient', 'Query.fhirObservations', 'Mutation.fhirBundle', 'Mutation.fhirCreate']) {
      expect(graphqlTwin(field), field).toBe(CAPABILITIES['fhir.interactions']);
    }
  });

  it('finds nothing for a field without a REST twin', () => {
    expect(graphqlTwin('Query.viewer')).toBeUndefined();
    expect(graphqlTwin('Query.fhi')).toBeUndefined();
  });
});
