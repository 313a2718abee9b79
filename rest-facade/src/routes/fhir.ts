import { capabilityRoute, DomainError, MAX_BUNDLE_ENTRIES, MAX_NDJSON_LINE_LENGTH, MAX_NDJSON_LINES } from '@svc/platform';
import type { GatewayOperation, RouteInput, RouteResult, RouteSpec } from './route.js';
import { fhirBulkExportRoutes } from './fhir-bulk-export.js';
import { bundleOrSyncJob, fhirSyncJobRoutes } from './fhir-sync-jobs.js';
import { fhirPatientMatchRoutes } from './fhir-patient-match.js';
import { assertFhirJsonBody } from './fhir-media-types.js';

/**
 * Scopes are decided per interaction and resource type by the FHIR subgraph (the spec's FHIR scope
 * table plus SMART v1/v2 scopes, see subgraphs/fhir/README.md), so the resource routes only require
 * a bearer credential here: a route-level list could not express `system/Observation.rs`.
 */
const PER_INTERACTION: readonly string[] = [];

/**
 * The body travels as JSON text both ways (`resourceText` in the variables and in the answer), never
 * as parsed JSON: a JavaScript number would turn the decimal `125.00` into `125`, and R4 makes the
 * written precision significant. The answer's text is the HTTP body as is.
 */
const RESPONSE_FIELDS = 'status resourceText etag location lastModified';

interface FhirResponse {
  status: number;
  /** The resource or Bundle as JSON text, numbers exactly as stored. */
  resourceText: string | null;
  etag: string | null;
  location: string | null;
  lastModified: string | null;
}

function header(input: RouteInput, name: string): string | null {
  const value = input.headers[name];
  if (Array.isArray(value)) return value.join(',');
  return value === undefined || value === '' ? null : value;
}

/** One `Prefer` token's value (`return`, `handling`). */
function prefer(input: RouteInput, key: string): string | null {
  const raw = header(input, 'prefer');
  if (!raw) return null;
  for (const part of raw.split(/[;,]/)) {
    const [k, v] = part.trim().split('=');
    if (k?.trim().toLowerCase() === key) return (v ?? '').trim().replace(/^"|"$/g, '');
  }
  return null;
}

/** The X-Svc-Source of a write, passed through for the subgraph to check and record. */
function source(input: RouteInput): string | null {
  return header(input, 'x-svc-source')?.trim() ?? null;
}

/** The HTTP answer of a FhirResponse: status, ETag, Location, Last-Modified and Prefer: return. */
function respondWith(field: string, options: { honourReturn?: boolean } = {}) {
  return (data: Record<string, unknown>, input: RouteInput): RouteResult => {
    const out = data[field] as FhirResponse;
    const headers: Record<string, string> = {};
    if (out.etag) headers['etag'] = out.etag;
    if (out.lastModified) headers['last-modified'] = out.lastModified;
    if (out.location && out.status === 201) headers['location'] = out.location;
    if (out.location && options.honourReturn) headers['content-location'] = out.location;
    let body: unknown = out.resourceText ?? undefined;
    if (options.honourReturn) {
      const wanted = prefer(input, 'return');
      if (wanted === 'minimal') body = undefined;
      else if (wanted === 'OperationOutcome') {
        body = {
          resourceType: 'OperationOutcome',
          issue: [{ severity: 'information', code: 'informational', diagnostics: `${out.status === 201 ? 'Created' : 'Updated'} ${out.location ?? ''}`.trim() }],
        };
      }
    }
    return { status: out.status, headers, body };
  };
}

function gatewayOperation(document: string, field: string, variables: (input: RouteInput) => Record<string, unknown>, options: { honourReturn?: boolean } = {}): GatewayOperation {
  const result = (data: Record<string, unknown>): unknown => {
    const text = (data[field] as FhirResponse).resourceText;
    return text === null ? null : (JSON.parse(text) as unknown);
  };
  return { document, variables, result, respond: respondWith(field, options) };
}

/** The request's query as a URL query string, repeats kept (`a=1&a=2`). */
function queryString(query: RouteInput['query'], extra: Record<string, unknown> = {}): string {
  const params = new URLSearchParams();
  for (const source of [query, extra]) {
    for (const [k, v] of Object.entries(source)) {
      if (Array.isArray(v)) v.forEach((x) => params.append(k, String(x)));
      else if (v !== undefined && v !== null) params.append(k, String(v));
    }
  }
  return params.toString();
}

function intParam(input: RouteInput, name: string, fallback: number): number {
  const raw = input.query[name];
  if (raw === undefined) return fallback;
  const n = Number(Array.isArray(raw) ? raw[0] : raw);
  if (!Number.isInteger(n)) throw new DomainError('BAD_REQUEST', `${name} must be an integer.`, { fieldErrors: [{ field: name, message: 'must be an integer' }] });
  return n;
}

function stringParam(input: RouteInput, name: string): string | null {
  const raw = input.query[name];
  return raw === undefined ? null : Array.isArray(raw) ? (raw[0] ?? null) : raw;
}

const READ = gatewayOperation(
  `query FhirRead($resourceType: String!, $id: ID!, $ifNoneMatch: String, $ifModifiedSince: String) {
  fhirRead(resourceType: $resourceType, id: $id, ifNoneMatch: $ifNoneMatch, ifModifiedSince: $ifModifiedSince) { ${RESPONSE_FIELDS} } }`,
  'fhirRead',
  (input) => ({ resourceType: input.params['resourceType'], id: input.params['id'], ifNoneMatch: header(input, 'if-none-match'), ifModifiedSince: header(input, 'if-modified-since') }),
);
const VREAD = gatewayOperation(
  `query FhirVread($resourceType: String!, $id: ID!, $versionId: ID!) { fhirVread(resourceType: $resourceType, id: $id, versionId: $versionId) { ${RESPONSE_FIELDS} } }`,
  'fhirVread',
  ({ params }) => ({ resourceType: params['resourceType'], id: params['id'], versionId: params['versionId'] }),
);
const HISTORY_DOC = `query FhirHistory($resourceType: String!, $id: ID, $count: Int, $offset: Int, $since: String, $cursor: String) {
  fhirHistory(resourceType: $resourceType, id: $id, count: $count, offset: $offset, since: $since, cursor: $cursor) { ${RESPONSE_FIELDS} } }`;
const historyVariables = (input: RouteInput) => ({
  resourceType: input.params['resourceType'],
  id: input.params['id'] ?? null,
  count: intParam(input, '_count', 20),
  offset: intParam(input, '_offset', 0),
  since: stringParam(input, '_since'),
  cursor: stringParam(input, '_cursor'),
});
const SEARCH_DOC = `query FhirSearch($resourceType: String!, $query: String!, $strict: Boolean) {
  fhirSearch(resourceType: $resourceType, query: $query, strict: $strict) { ${RESPONSE_FIELDS} } }`;
const strict = (input: RouteInput) => prefer(input, 'handling') === 'strict';
const SEARCH = gatewayOperation(SEARCH_DOC, 'fhirSearch', (input) => ({ resourceType: input.params['resourceType'], query: queryString(input.query), strict: strict(input) }));
const SEARCH_POST = gatewayOperation(SEARCH_DOC, 'fhirSearch', (input) => {
  const form = input.body && typeof input.body === 'object' && !Array.isArray(input.body) ? (input.body as Record<string, unknown>) : {};
  return { resourceType: input.params['resourceType'], query: queryString(input.query, form), strict: strict(input) };
});
const CREATE = gatewayOperation(
  `mutation FhirCreate($resourceType: String!, $resourceText: String!, $ifNoneExist: String, $source: String) {
  fhirCreate(resourceType: $resourceType, resourceText: $resourceText, ifNoneExist: $ifNoneExist, source: $source) { ${RESPONSE_FIELDS} } }`,
  'fhirCreate',
  (input) => ({ resourceType: input.params['resourceType'], resourceText: bodyText(input, bodyResource(input)), ifNoneExist: header(input, 'if-none-exist'), source: source(input) }),
  { honourReturn: true },
);
const UPDATE = gatewayOperation(
  `mutation FhirUpdate($resourceType: String!, $id: ID!, $resourceText: String!, $ifMatch: String, $source: String) {
  fhirUpdate(resourceType: $resourceType, id: $id, resourceText: $resourceText, ifMatch: $ifMatch, source: $source) { ${RESPONSE_FIELDS} } }`,
  'fhirUpdate',
  (input) => ({ resourceType: input.params['resourceType'], id: input.params['id'], resourceText: bodyText(input, bodyResource(input)), ifMatch: header(input, 'if-match'), source: source(input) }),
  { honourReturn: true },
);
const DELETE = gatewayOperation(
  `mutation FhirDelete($resourceType: String!, $id: ID!, $source: String) { fhirDelete(resourceType: $resourceType, id: $id, source: $source) { ${RESPONSE_FIELDS} } }`,
  'fhirDelete',
  (input) => ({ resourceType: input.params['resourceType'], id: input.params['id'], source: source(input) }),
);

const PATCH_DOC = `mutation FhirPatch($resourceType: String!, $id: ID, $query: String, $patchText: String!, $ifMatch: String, $source: String) {
  fhirPatch(resourceType: $resourceType, id: $id, query: $query, patchText: $patchText, ifMatch: $ifMatch, source: $source) { ${RESPONSE_FIELDS} } }`;
const patchVariables = (input: RouteInput) => ({
  resourceType: input.params['resourceType'],
  id: input.params['id'] ?? null,
  query: input.params['id'] ? null : queryString(input.query),
  patchText: bodyText(input, patchBody(input)),
  ifMatch: header(input, 'if-match'),
  source: source(input),
});
const PATCH = gatewayOperation(PATCH_DOC, 'fhirPatch', patchVariables, { honourReturn: true });
const CONDITIONAL_UPDATE = gatewayOperation(
  `mutation FhirConditionalUpdate($resourceType: String!, $query: String!, $resourceText: String!, $ifMatch: String, $source: String) {
  fhirConditionalUpdate(resourceType: $resourceType, query: $query, resourceText: $resourceText, ifMatch: $ifMatch, source: $source) { ${RESPONSE_FIELDS} } }`,
  'fhirConditionalUpdate',
  (input) => ({ resourceType: input.params['resourceType'], query: queryString(input.query), resourceText: bodyText(input, bodyResource(input)), ifMatch: header(input, 'if-match'), source: source(input) }),
  { honourReturn: true },
);
const CONDITIONAL_DELETE = gatewayOperation(
  `mutation FhirConditionalDelete($resourceType: String!, $query: String!, $source: String) { fhirConditionalDelete(resourceType: $resourceType, query: $query, source: $source) { ${RESPONSE_FIELDS} } }`,
  'fhirConditionalDelete',
  (input) => ({ resourceType: input.params['resourceType'], query: queryString(input.query), source: source(input) }),
);

/** A JSON Patch body: an array of operation objects (checked in full by the subgraph). */
function patchBody(input: RouteInput): Record<string, unknown>[] {
  const body = input.body;
  if (!Array.isArray(body) || body.some((op) => typeof op !== 'object' || op === null || Array.isArray(op))) {
    throw new DomainError('BAD_REQUEST', 'The body must be a JSON Patch: an array of operations (application/json-patch+json).', { fieldErrors: [{ field: 'patch', message: 'an array of operation objects is required' }] });
  }
  return body as Record<string, unknown>[];
}

// With Prefer: respond-async or an NDJSON body, the same row starts a durable sync job (fhir-sync-jobs.ts).
const BUNDLE = bundleOrSyncJob(gatewayOperation(
  `mutation FhirBundle($bundleText: String!, $returnResources: Boolean, $source: String) {
  fhirBundle(bundleText: $bundleText, returnResources: $returnResources, source: $source) { ${RESPONSE_FIELDS} } }`,
  'fhirBundle',
  (input) => ({ bundleText: bodyText(input, bodyResource(input)), returnResources: prefer(input, 'return') !== 'minimal', source: source(input) }),
));

/** The body's JSON text as the client sent it (its shape checked first); re-serialized only when the text is unknown. */
function bodyText(input: RouteInput, checked: unknown): string {
  return input.rawBody ?? JSON.stringify(checked);
}

/** A JSON object body, or a 400 OperationOutcome naming the problem (415 for a media type that is not FHIR JSON). */
function bodyResource(input: RouteInput): Record<string, unknown> {
  assertFhirJsonBody(input);
  const body = input.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError('BAD_REQUEST', 'The body must be a FHIR resource in JSON (application/fhir+json).', { fieldErrors: [{ field: input.params['resourceType'] ?? '', message: 'a JSON object is required' }] });
  }
  return body as Record<string, unknown>;
}

/**
 * SMART App Launch 2.x discovery (/.well-known/smart-configuration) built from the authorization
 * server's own metadata, so the endpoints, grant types and client authentication methods are the
 * ones that really run: SMART Backend Services (client_credentials with private_key_jwt) and
 * confidential symmetric clients; SMART v1 and v2 scope syntax; patient/ scopes narrowed to the
 * patient launch context of clients registered with a patient (subgraphs/fhir/README.md, "Scopes").
 */
const SMART_CONFIGURATION: GatewayOperation = {
  document:
    '{ oauthServerMetadata { issuer tokenEndpoint jwksUri registrationEndpoint grantTypesSupported tokenEndpointAuthMethodsSupported tokenEndpointAuthSigningAlgValuesSupported scopesSupported } }',
  result: (data) => smartConfiguration(data),
  respond: (data) => ({ body: smartConfiguration(data), headers: { 'cache-control': 'public, max-age=3600' }, contentType: 'application/json' }),
};

function smartConfiguration(data: Record<string, unknown>): Record<string, unknown> {
  const m = data['oauthServerMetadata'] as Record<string, unknown> & { scopesSupported: string[]; tokenEndpointAuthMethodsSupported: string[] };
  const methods = m.tokenEndpointAuthMethodsSupported;
  const capabilities = [
    ...(methods.includes('private_key_jwt') ? ['client-confidential-asymmetric'] : []),
    ...(methods.some((x) => x.startsWith('client_secret')) ? ['client-confidential-symmetric'] : []),
    'permission-v1',
    'permission-v2',
    // patient/ scopes are narrowed to the patient context of a client registered with a patient,
    // which a token request may ask for with launch/patient and the token response names in `patient`.
    'permission-patient',
    ...(m.scopesSupported.includes('launch/patient') ? ['context-standalone-patient'] : []),
  ];
  return {
    issuer: m['issuer'],
    jwks_uri: m['jwksUri'],
    token_endpoint: m['tokenEndpoint'],
    registration_endpoint: m['registrationEndpoint'],
    grant_types_supported: m['grantTypesSupported'],
    token_endpoint_auth_methods_supported: methods,
    token_endpoint_auth_signing_alg_values_supported: m['tokenEndpointAuthSigningAlgValuesSupported'],
    scopes_supported: m.scopesSupported,
    response_types_supported: [],
    capabilities,
    code_challenge_methods_supported: [],
  };
}

const fhir = (spec: Omit<RouteSpec, 'product' | 'format'>): RouteSpec => ({ product: 'fhir', format: 'fhir', ...spec });

/** POST /fhir/R4's limits (platform's payload-limits.ts), checked before any entry or line is read; the GraphQL twins fhirBundle and fhirSyncSubmit share them. */
const BUNDLE_LIMITS = [
  `A transaction or batch Bundle, synchronous or with Prefer: respond-async, carries at most ${MAX_BUNDLE_ENTRIES.toLocaleString('en-US')} entries (bundle.entries, 413 PAYLOAD_TOO_LARGE).`,
  `An NDJSON push carries at most ${MAX_NDJSON_LINES.toLocaleString('en-US')} resources (ndjson.lines) and each line at most ${MAX_NDJSON_LINE_LENGTH.toLocaleString('en-US')} characters (ndjson.line_length), 413 PAYLOAD_TOO_LARGE naming the line.`,
  'Any body at most 5 MiB (413 PAYLOAD_TOO_LARGE).',
];

/** The spec's "FHIR R4" table under the base /fhir/R4, plus the REST interactions it implies. */
export const fhirRoutes: RouteSpec[] = [
  fhir({
    id: 'fhir.metadata',
    method: 'GET',
    path: '/fhir/R4/metadata',
    ...capabilityRoute('fhir.metadata'),
    summary: 'CapabilityStatement: supported types and interactions',
    auth: 'none',
    scopes: [],
    successStatus: 200,
    operation: { document: 'query Metadata { fhirCapabilityStatement }', result: (data) => data['fhirCapabilityStatement'] },
  }),
  { id: 'fhir.smart-configuration', method: 'GET', path: '/fhir/R4/.well-known/smart-configuration', product: 'fhir', summary: 'SMART on FHIR OAuth discovery', auth: 'none', scopes: [], successStatus: 200, operation: SMART_CONFIGURATION },
  { id: 'fhir.smart-configuration-origin', method: 'GET', path: '/.well-known/smart-configuration', product: 'fhir', summary: 'SMART on FHIR OAuth discovery (at the origin)', auth: 'none', scopes: [], successStatus: 200, operation: SMART_CONFIGURATION },
  ...fhirBulkExportRoutes,
  ...fhirPatientMatchRoutes,
  fhir({ id: 'fhir.search', method: 'GET', path: '/fhir/R4/{resourceType}', summary: 'Search with FHIR search parameters (cms.fhir.r4.read or a SMART .s/.read scope for the type)', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 200, operation: SEARCH }),
  fhir({ id: 'fhir.search-post', method: 'POST', path: '/fhir/R4/{resourceType}/_search', summary: 'Search with parameters in a form-encoded body', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 200, requestContentType: 'application/x-www-form-urlencoded', operation: SEARCH_POST }),
  fhir({ id: 'fhir.read', method: 'GET', path: '/fhir/R4/{resourceType}/{id}', summary: 'Read one resource by logical id (cms.fhir.r4.read or a SMART .r/.read scope for the type)', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 200, operation: READ }),
  fhir({ id: 'fhir.vread', method: 'GET', path: '/fhir/R4/{resourceType}/{id}/_history/{versionId}', summary: 'Read one version of a resource', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 200, operation: VREAD }),
  fhir({ id: 'fhir.history-instance', method: 'GET', path: '/fhir/R4/{resourceType}/{id}/_history', summary: 'Every version of one resource, newest first', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 200, operation: gatewayOperation(HISTORY_DOC, 'fhirHistory', historyVariables) }),
  fhir({ id: 'fhir.history-type', method: 'GET', path: '/fhir/R4/{resourceType}/_history', summary: 'Every version of every visible resource of a type, newest first', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 200, operation: gatewayOperation(HISTORY_DOC, 'fhirHistory', historyVariables) }),
  fhir({ id: 'fhir.create', method: 'POST', path: '/fhir/R4/{resourceType}', summary: 'Create a resource (write scope required; If-None-Exist for a conditional create)', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 201, operation: CREATE }),
  fhir({ id: 'fhir.update', method: 'PUT', path: '/fhir/R4/{resourceType}/{id}', summary: 'Update an existing resource (If-Match for optimistic locking)', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 200, operation: UPDATE }),
  fhir({ id: 'fhir.patch', method: 'PATCH', path: '/fhir/R4/{resourceType}/{id}', summary: 'Patch a resource with a JSON Patch (application/json-patch+json; If-Match honoured)', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 200, requestContentType: 'application/json-patch+json', operation: PATCH }),
  fhir({ id: 'fhir.patch-conditional', method: 'PATCH', path: '/fhir/R4/{resourceType}', summary: 'Conditional patch: the one resource the query matches (404 none, 412 several)', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 200, requestContentType: 'application/json-patch+json', operation: PATCH }),
  fhir({ id: 'fhir.update-conditional', method: 'PUT', path: '/fhir/R4/{resourceType}', summary: 'Conditional update: create when the query matches nothing, update the one match, 412 for several', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 200, operation: CONDITIONAL_UPDATE }),
  fhir({ id: 'fhir.delete-conditional', method: 'DELETE', path: '/fhir/R4/{resourceType}', summary: 'Conditional delete of the one resource the query matches (412 for several)', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 204, operation: CONDITIONAL_DELETE }),
  fhir({ id: 'fhir.delete', method: 'DELETE', path: '/fhir/R4/{resourceType}/{id}', summary: 'Delete a resource (soft: reads answer 410 afterwards)', auth: 'bearer', scopes: PER_INTERACTION, successStatus: 204, operation: DELETE }),
  fhir({ id: 'fhir.bundle', method: 'POST', path: '/fhir/R4', summary: 'Submit a transaction or batch Bundle (at most 1000 entries; each entry also needs its own interaction scope). With Prefer: respond-async, or an NDJSON body (application/fhir+ndjson), a durable sync job: 202 and Content-Location …/$sync-status/{jobId}', auth: 'bearer', scopes: ['cms.fhir.bundle.push', 'system/*.write'], successStatus: 200, operation: BUNDLE, payloadLimits: BUNDLE_LIMITS }),
  ...fhirSyncJobRoutes,
];
