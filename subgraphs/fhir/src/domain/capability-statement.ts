import { definitions, searchParametersOf } from './definitions.js';
import { indexedParams } from './search-index.js';

/** FHIR R4 release this server implements. */
export const FHIR_VERSION = '4.0.1';

/** The interactions every resource type supports, as the REST routes serve them. */
export const TYPE_INTERACTIONS = ['read', 'vread', 'update', 'patch', 'delete', 'history-instance', 'history-type', 'create', 'search-type'] as const;

const cache = new Map<string, Record<string, unknown>>();

/**
 * The operations the server runs, with the canonical of each OperationDefinition: Bulk Data
 * `$export` at system, Patient and Group level (Bulk Data Access IG 2.0: "export operations SHALL be
 * declared" with these definitions) and R4's `Patient/$match`.
 */
const BULK_DATA = 'http://hl7.org/fhir/uv/bulkdata';
export const SYSTEM_OPERATIONS = [{ name: 'export', definition: `${BULK_DATA}/OperationDefinition/export` }] as const;
export const TYPE_OPERATIONS: Readonly<Record<string, readonly { name: string; definition: string }[]>> = {
  Patient: [
    { name: 'export', definition: `${BULK_DATA}/OperationDefinition/patient-export` },
    { name: 'match', definition: 'http://hl7.org/fhir/OperationDefinition/Patient-match' },
  ],
  Group: [{ name: 'export', definition: `${BULK_DATA}/OperationDefinition/group-export` }],
};

/**
 * `_has` (reverse chaining, R4 search.html) on every type some indexed reference parameter may point
 * at. R4 has no SearchParameter resource for `_has`, so it is declared as a `special` searchParam
 * with its documentation (CapabilityStatement.rest.resource.searchParam allows a name without
 * definition).
 */
const HAS_PARAM = {
  name: '_has',
  type: 'special',
  documentation: 'Reverse chaining: _has:Type:reference-param:search-param=value, nested up to 2 levels; reaches only resources the caller may see.',
};

let reverse: Map<string, string[]> | undefined;

/** `Source:param` of every indexed reference parameter that may point at `type` (for searchRevInclude). */
function revIncludes(type: string): string[] {
  if (!reverse) {
    reverse = new Map();
    for (const source of definitions().resourceTypes) {
      const params = searchParametersOf(source);
      for (const p of indexedParams(source)) {
        if (p.type !== 'reference') continue;
        for (const target of params[p.code]?.target ?? []) reverse.set(target, [...(reverse.get(target) ?? []), `${source}:${p.code}`]);
      }
    }
  }
  return reverse.get(type) ?? [];
}

/**
 * The CapabilityStatement served at /metadata, generated from what runs: every R4 resource type of
 * the loaded definitions, the interactions of the engine, and each type's indexed search
 * parameters (those the search tables answer), with the SMART security extension that points at
 * the OAuth endpoints. Built once per base URL.
 */
export function capabilityStatement(publicUrl: string): Record<string, unknown> {
  const cached = cache.get(publicUrl);
  if (cached) return cached;
  const fhirBase = `${publicUrl}/fhir/R4`;
  const statement = {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: '2026-01-01',
    kind: 'instance',
    software: { name: 'health-partner-platform', version: '0.1.0' },
    implementation: { description: 'Partner platform FHIR R4 endpoint', url: fhirBase },
    instantiates: [`${BULK_DATA}/CapabilityStatement/bulk-data`],
    fhirVersion: FHIR_VERSION,
    format: ['application/fhir+json', 'json'],
    patchFormat: ['application/json-patch+json'],
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
          description: 'OAuth 2.0 client_credentials (SMART Backend Services) or partner API tokens; see /.well-known/smart-configuration.',
        },
        resource: definitions().resourceTypes.map((type) => {
          const params = searchParametersOf(type);
          const references = indexedParams(type).filter((p) => p.type === 'reference').map((p) => p.code);
          return {
            type,
            profile: `http://hl7.org/fhir/StructureDefinition/${type}`,
            interaction: TYPE_INTERACTIONS.map((code) => ({ code })),
            versioning: 'versioned-update',
            readHistory: true,
            updateCreate: false,
            conditionalCreate: true,
            conditionalRead: 'not-supported',
            conditionalUpdate: true,
            conditionalDelete: 'single',
            searchInclude: references.map((code) => `${type}:${code}`),
            searchRevInclude: revIncludes(type),
            searchParam: [
              { name: '_id', type: 'token', definition: 'http://hl7.org/fhir/SearchParameter/Resource-id' },
              { name: '_lastUpdated', type: 'date', definition: 'http://hl7.org/fhir/SearchParameter/Resource-lastUpdated' },
              ...indexedParams(type).map((p) => ({ name: p.code, type: params[p.code]?.type ?? p.type, definition: params[p.code]?.url })),
              ...(revIncludes(type).length > 0 ? [HAS_PARAM] : []),
            ],
            ...(TYPE_OPERATIONS[type] ? { operation: TYPE_OPERATIONS[type].map((o) => ({ ...o })) } : {}),
          };
        }),
        interaction: [{ code: 'transaction' }, { code: 'batch' }],
        operation: SYSTEM_OPERATIONS.map((o) => ({ ...o })),
      },
    ],
  };
  cache.set(publicUrl, statement);
  return statement;
}
