import { capabilityRoute, DomainError, isId, validationError, type FieldError } from '@svc/platform';
import { CHANGE_RESPONSE_SCHEMA, changeRequestBody, REQUEST_FIELDS, type ChangeRequestData } from './identity.js';
import { failOn, PAGE_PARAMETERS, pageBody, readPage } from './page-query.js';
import type { GatewayOperation, JsonSchema, RouteInput, RouteSpec } from './route.js';

/*
 * Reading the registry's merge and split requests (decided on POST /api/identity/merge|split), the
 * audit chain they write and its verification, and the entity types (ours; the spec names the
 * immutable audit events and the count of entity types only):
 *
 *   GET /api/identity/change-requests?status=&kind=&limit=&cursor=  → { change_requests, next_cursor }, newest first
 *   GET /api/identity/change-requests/{request_id}                   → the request (mrg_… or spl_…)
 *   GET /api/identity/audit?types=&limit=&cursor=                    → { entries, next_cursor }, oldest first
 *   GET /api/identity/audit/verification                             → { valid, checked, head_seq, … }
 *   GET /api/identity/entity-types                                   → { entity_types }, patient first
 *
 * GraphQL twins: identityChangeRequests, identityChangeRequest, identityAuditEntries,
 * identityAuditVerification, identityEntityTypes, with the same scopes. A partner reads its own partner's requests and
 * audit entries (an approver also opens a request of another partner by id when it sees every
 * GPID the request names); any other request answers 404 exactly like a missing one.
 */

const CHANGE_SCOPES = ['identity.merge', 'identity.split', 'identity.approve', 'cms.admin'];
const AUDIT_SCOPES = ['cms.admin', 'identity.approve'];
const CHANGE_STATUSES = ['PENDING', 'APPLIED', 'REJECTED', 'EXPIRED'];
const AUDIT_FIELDS = 'seq eventId type occurredAt partnerGpid payload canonicalPayload prevHash hash';

const isRequestId = (id: string): boolean => isId('mrg', id) || isId('spl', id);

/** One value of a query parameter, from a fixed list (any case), upper-cased; a wrong one is a field error. */
function oneOf(input: RouteInput, name: string, allowed: readonly string[], errors: FieldError[]): string | null {
  const raw = input.query[name];
  if (raw === undefined || raw === '') return null;
  if (Array.isArray(raw)) errors.push({ field: name, message: 'must be given once' });
  else if (!allowed.includes(raw.toUpperCase())) errors.push({ field: name, message: `must be one of ${allowed.map((v) => v.toLowerCase()).join(', ')}` });
  else return raw.toUpperCase();
  return null;
}

/** A route that takes no query parameters: any given is named in a 422. */
function noQuery({ query }: RouteInput): void {
  failOn(Object.keys(query).map((field) => ({ field, message: 'is not a parameter of this route (it takes none)' })));
}

const listRequests: GatewayOperation = {
  document: `query IdentityChangeRequests($status: IdentityChangeStatus, $kind: IdentityChangeKind, $first: Int, $after: String) {
  identityChangeRequests(status: $status, kind: $kind, first: $first, after: $after) { edges { node { ${REQUEST_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
  variables: (input) => {
    const { first, after, errors } = readPage(input.query, { known: ['status', 'kind'], cursorKey: isRequestId });
    const status = oneOf(input, 'status', CHANGE_STATUSES, errors);
    const kind = oneOf(input, 'kind', ['MERGE', 'SPLIT'], errors);
    failOn(errors);
    return { status, kind, first, after };
  },
  result: (data) => {
    const page = pageBody(data['identityChangeRequests'] as Parameters<typeof pageBody<ChangeRequestData>>[0], (r) => changeRequestBody(r, null));
    return { change_requests: page.items, next_cursor: page.next_cursor };
  },
};

const getRequest: GatewayOperation = {
  document: `query IdentityChangeRequest($id: ID!) { identityChangeRequest(id: $id) { ${REQUEST_FIELDS} } }`,
  variables: (input) => {
    const id = input.params['request_id'] ?? '';
    if (!isRequestId(id)) throw validationError([{ field: 'request_id', message: 'must be a merge (mrg_…) or split (spl_…) request id' }], 'The request id is malformed.');
    noQuery(input);
    return { id };
  },
  result: (data, input) => {
    const request = data['identityChangeRequest'] as ChangeRequestData | null;
    if (!request) throw new DomainError('NOT_FOUND', `No merge or split request has id ${input.params['request_id']}.`);
    return changeRequestBody(request, null);
  },
};

interface AuditEntryData {
  seq: number;
  eventId: string;
  type: string;
  occurredAt: string;
  partnerGpid: string | null;
  payload: Record<string, unknown>;
  canonicalPayload: string;
  prevHash: string;
  hash: string;
}

/** An audit entry as REST shows it: snake_case envelope, the payload as hashed (its keys untouched). */
function entryBody(e: AuditEntryData) {
  return { seq: e.seq, event_id: e.eventId, type: e.type, occurred_at: e.occurredAt, partner_gpid: e.partnerGpid, payload: e.payload, canonical_payload: e.canonicalPayload, prev_hash: e.prevHash, hash: e.hash };
}

const listAudit: GatewayOperation = {
  document: `query IdentityAuditEntries($first: Int, $after: String, $types: [String!]) {
  identityAuditEntries(first: $first, after: $after, types: $types) { edges { node { ${AUDIT_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
  variables: ({ query }) => {
    const { first, after, errors } = readPage(query, { known: ['types'], cursorKey: (key) => /^\d{1,15}$/.test(key) });
    const raw = query['types'];
    const types = raw === undefined ? null : (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
    if (types !== null && types.length === 0) errors.push({ field: 'types', message: 'must name at least one audit event type' });
    failOn(errors);
    return { first, after, types };
  },
  result: (data) => {
    const page = pageBody(data['identityAuditEntries'] as Parameters<typeof pageBody<AuditEntryData>>[0], entryBody);
    return { entries: page.items, next_cursor: page.next_cursor };
  },
};

const verifyAudit: GatewayOperation = {
  document: 'query IdentityAuditVerification { identityAuditVerification { valid checked headSeq headHash firstInvalidSeq problem } }',
  variables: (input) => {
    noQuery(input);
    return {};
  },
  result: (data) => {
    const v = data['identityAuditVerification'] as Record<string, unknown>;
    return { valid: v['valid'], checked: v['checked'], head_seq: v['headSeq'], head_hash: v['headHash'], first_invalid_seq: v['firstInvalidSeq'], problem: v['problem'] };
  },
};

const entityTypes: GatewayOperation = {
  document: 'query IdentityEntityTypes { identityEntityTypes { id code label fhirResourceType description } }',
  variables: (input) => {
    noQuery(input);
    return {};
  },
  result: (data) => ({
    entity_types: (data['identityEntityTypes'] as Record<string, unknown>[]).map((t) => ({ id: t['id'], code: t['code'], label: t['label'], fhir_resource_type: t['fhirResourceType'], description: t['description'] })),
  }),
};

const REQUEST_ID: JsonSchema = { type: 'string', pattern: '^(mrg|spl)_[0-9a-z]{26}$' };
const HASH: JsonSchema = { type: 'string', pattern: '^[0-9a-f]{64}$' };
const ENTRY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['seq', 'event_id', 'type', 'occurred_at', 'payload', 'canonical_payload', 'prev_hash', 'hash'],
  properties: {
    seq: { type: 'integer', description: 'Position in the chain, from 1, without gaps.' },
    event_id: { type: 'string', description: 'evt_…: for a merge or split, the same event on the bus and in the event log.' },
    type: { type: 'string', description: 'identity.merged.v1, identity.split.v1 (operators also see identity.scoring_model.trained.v1 and .activated.v1).' },
    occurred_at: { type: 'string', description: 'ISO 8601 UTC, exactly as hashed.' },
    partner_gpid: { type: ['string', 'null'] },
    payload: { type: 'object', description: 'The event payload (its keys as hashed).' },
    canonical_payload: { type: 'string', description: 'The payload as canonical JSON text, exactly as hashed.' },
    prev_hash: { ...HASH, description: 'SHA-256 (hex) of the previous entry; 64 zeros for the first.' },
    hash: { ...HASH, description: 'sha256(prev_hash \\n seq \\n event_id \\n type \\n occurred_at \\n canonical_payload), hex.' },
  },
};

function route(id: string, path: string, summary: string, scopes: string[], capability: Parameters<typeof capabilityRoute>[0]): Omit<RouteSpec, 'operation'> {
  return { id, method: 'GET', path, summary, auth: 'bearer', scopes, successStatus: 200, ...capabilityRoute(capability) };
}

export const identityRegistryRoutes: RouteSpec[] = [
  {
    ...route('identity.change-requests.list', '/api/identity/change-requests', 'Merge and split requests, newest first (paged): every request for operators, your partner\'s otherwise', CHANGE_SCOPES, 'identity.changes.read'),
    operation: listRequests,
    queryParameters: {
      ...PAGE_PARAMETERS,
      status: { schema: { type: 'string', enum: ['pending', 'applied', 'rejected', 'expired'] }, description: 'Only requests in this state (any case).' },
      kind: { schema: { type: 'string', enum: ['merge', 'split'] }, description: 'Only merges or only splits.' },
    },
    responseBody: { type: 'object', required: ['change_requests', 'next_cursor'], properties: { change_requests: { type: 'array', items: CHANGE_RESPONSE_SCHEMA }, next_cursor: { type: ['string', 'null'] } } },
  },
  {
    ...route('identity.change-requests.get', '/api/identity/change-requests/{request_id}', 'One merge or split request, with its decision and how to approve it while pending', CHANGE_SCOPES, 'identity.changes.read'),
    operation: getRequest,
    pathParameters: { request_id: { schema: REQUEST_ID, description: 'The request (mrg_… or spl_…), as POST /api/identity/merge|split answered it.' } },
    responseBody: CHANGE_RESPONSE_SCHEMA,
  },
  {
    ...route('identity.audit.list', '/api/identity/audit', 'The hash-chained identity audit entries in order, oldest first (paged); a partner\'s approver reads the changes its partner requested', AUDIT_SCOPES, 'identity.audit.read'),
    operation: listAudit,
    queryParameters: { ...PAGE_PARAMETERS, types: { schema: { type: 'string' }, description: 'Comma-separated audit event types to keep (e.g. identity.merged.v1,identity.split.v1).' } },
    responseBody: { type: 'object', required: ['entries', 'next_cursor'], properties: { entries: { type: 'array', items: ENTRY_SCHEMA }, next_cursor: { type: ['string', 'null'] } } },
  },
  {
    ...route('identity.audit.verify', '/api/identity/audit/verification', "Verify the identity audit chain: walk it from its first entry, recomputing every hash (tamper evidence). Operators only: the chain holds every partner's changes", ['cms.admin'], 'identity.audit.verify'),
    operation: verifyAudit,
    responseBody: {
      type: 'object',
      required: ['valid', 'checked'],
      properties: {
        valid: { type: 'boolean', description: 'Every entry links to its predecessor and matches its hash.' },
        checked: { type: 'integer', description: 'Entries that verified.' },
        head_seq: { type: ['integer', 'null'], description: 'The last verified entry: compare with a published head to detect truncation.' },
        head_hash: { type: ['string', 'null'] },
        first_invalid_seq: { type: ['integer', 'null'] },
        problem: { type: ['string', 'null'] },
      },
    },
  },
  {
    ...route('identity.entity-types', '/api/identity/entity-types', 'The 22 entity types of the registry, patient first and service last', [], 'identity.entity-types'),
    operation: entityTypes,
    responseBody: {
      type: 'object',
      required: ['entity_types'],
      properties: {
        entity_types: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'code', 'label', 'description'],
            properties: {
              id: { type: 'string', description: 'The value of entity_type (e.g. patient).' },
              code: { type: 'string', description: 'TYPE of system GPIDs {PRD}-{TYPE}-{N} (patients get SVC- GPIDs).' },
              label: { type: 'string' },
              fhir_resource_type: { type: ['string', 'null'] },
              description: { type: 'string' },
            },
          },
        },
      },
    },
  },
];
