/** FHIR R4 release this server implements. */
export const FHIR_VERSION = '4.0.1';

/** Resource types the store accepts today; the list grows with the FHIR store. */
export const SUPPORTED_RESOURCE_TYPES = ['Patient', 'Observation', 'Encounter', 'Condition', 'Practitioner', 'Organization'] as const;

/**
 * The CapabilityStatement served at /metadata: what this server supports, with the SMART on FHIR
 * security extension that points at our OAuth endpoints.
 */
export function capabilityStatement(publicUrl: string, now: Date = new Date()): Record<string, unknown> {
  const fhirBase = `${publicUrl}/fhir/R4`;
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: now.toISOString(),
    kind: 'instance',
    software: { name: 'health-partner-platform', version: '0.1.0' },
    implementation: { description: 'Partner platform FHIR R4 endpoint', url: fhirBase },
    fhirVersion: FHIR_VERSION,
    format: ['application/fhir+json', 'json'],
    rest: [
      {
        mode: 'server',
        security: {
          cors: true,
          service: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'SMART-on-FHIR' }] }],
          extension: [
            {
              url: 'http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris',
              extension: [{ url: 'token', valueUri: `${publicUrl}/oauth/token` }],
            },
          ],
        },
        resource: SUPPORTED_RESOURCE_TYPES.map((type) => ({
          type,
          versioning: 'versioned',
          readHistory: false,
          updateCreate: false,
          interaction: ['read', 'search-type', 'create', 'update'].map((code) => ({ code })),
        })),
        interaction: [{ code: 'transaction' }, { code: 'batch' }],
        operation: [{ name: 'export', definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/export' }],
      },
    ],
  };
}
