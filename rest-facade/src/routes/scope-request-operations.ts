import { capabilityRoute, DomainError, isId, isPartnerGpid } from '@svc/platform';
import type { GatewayOperation, JsonSchema, RouteInput, RouteSpec } from './route.js';
import { BodyReader } from './body-readers.js';
import { failOn, PAGE_PARAMETERS, pageBody, readPage } from './page-query.js';
import { snakeKeys } from './snake-case.js';

/**
 * Scope requests (ours): a partner asks for scopes with a reason (`POST /cms/scope-requests`), reads
 * its requests, and an operator grants or refuses them. The twins of `requestScopes`, `scopeRequests`,
 * `scopeRequest`, `grantScopeRequest` and `refuseScopeRequest`, with the same scopes and limits.
 * Another partner's request answers 404 exactly like a missing one.
 */

const FIELDS = 'id partnerGpid scopes reason status requestedBy createdAt decidedBy decisionReason decidedAt';
const STATUSES = ['pending', 'granted', 'refused'];
const NULLABLE_TIMESTAMP: JsonSchema = { type: ['string', 'null'], format: 'date-time' };
const SCOPES: JsonSchema = { type: 'array', items: { type: 'string' } };
const REQUEST_ID: JsonSchema = { type: 'string', pattern: '^scr_[0-9a-z]{26}$' };

export const SCOPE_REQUEST_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'partner_gpid', 'scopes', 'reason', 'status', 'created_at'],
  properties: {
    id: REQUEST_ID,
    partner_gpid: { type: 'string', pattern: '^CMS-[0-9]{8}$' },
    scopes: SCOPES,
    reason: { type: 'string' },
    status: { type: 'string', enum: STATUSES },
    requested_by: { type: ['string', 'null'], description: 'The credential that asked (ses_…, tok_… or cli_…).' },
    created_at: { type: 'string', format: 'date-time' },
    decided_by: { type: ['string', 'null'], description: 'The operator credential that decided.' },
    decision_reason: { type: ['string', 'null'] },
    decided_at: NULLABLE_TIMESTAMP,
  },
};

/** The REST body of a request: snake_case keys, the status in lower case like other REST states. */
function body(node: unknown): Record<string, unknown> {
  const out = snakeKeys(node) as Record<string, unknown>;
  return { ...out, status: String(out['status']).toLowerCase() };
}

function missing(input: RouteInput): DomainError {
  return new DomainError('NOT_FOUND', `No scope request ${input.params['id'] ?? ''}.`);
}

function requestId(input: RouteInput): string {
  const id = input.params['id'] ?? '';
  if (!isId('scr', id)) throw missing(input);
  return id;
}

const list: GatewayOperation = {
  document: `query ScopeRequests($status: ScopeRequestStatus, $partnerGpid: ID, $first: Int, $after: String) {
    scopeRequests(status: $status, partnerGpid: $partnerGpid, first: $first, after: $after) { edges { node { ${FIELDS} } } pageInfo { hasNextPage endCursor } }
  }`,
  variables: (input) => {
    const { first, after, errors } = readPage(input.query, { known: ['status', 'partner_gpid'], cursorKey: 'scr' });
    const status = input.query['status'];
    if (Array.isArray(status)) errors.push({ field: 'status', message: 'must be given once' });
    else if (status !== undefined && !STATUSES.includes(status)) errors.push({ field: 'status', message: `must be one of ${STATUSES.join(', ')}` });
    const gpid = input.query['partner_gpid'];
    if (Array.isArray(gpid)) errors.push({ field: 'partner_gpid', message: 'must be given once' });
    else if (gpid !== undefined && !isPartnerGpid(gpid)) errors.push({ field: 'partner_gpid', message: 'must be CMS- followed by 8 digits' });
    failOn(errors);
    return { first, after, status: typeof status === 'string' ? status.toUpperCase() : null, partnerGpid: typeof gpid === 'string' ? gpid : null };
  },
  result: (data) => {
    const page = pageBody(data['scopeRequests'] as Parameters<typeof pageBody<unknown>>[0], body);
    return { scope_requests: page.items, next_cursor: page.next_cursor };
  },
};

const getOne: GatewayOperation = {
  document: `query ScopeRequest($id: ID!) { scopeRequest(id: $id) { ${FIELDS} } }`,
  variables: (input) => ({ id: requestId(input) }),
  result: (data, input) => {
    if (!data['scopeRequest']) throw missing(input);
    return body(data['scopeRequest']);
  },
};

const create: GatewayOperation = {
  document: `mutation RequestScopes($scopes: [String!]!, $reason: String!) { requestScopes(scopes: $scopes, reason: $reason) { ${FIELDS} } }`,
  variables: ({ body: raw }) => {
    const reader = new BodyReader(raw);
    const scopes = reader.stringArray('scopes', true);
    const reason = reader.string('reason', true);
    reader.done();
    return { scopes, reason };
  },
  result: (data) => body(data['requestScopes']),
};

function decide(field: 'grantScopeRequest' | 'refuseScopeRequest', reasonRequired: boolean): GatewayOperation {
  const reasonType = reasonRequired ? 'String!' : 'String';
  return {
    document: `mutation ${field[0]!.toUpperCase()}${field.slice(1)}($id: ID!, $reason: ${reasonType}) { ${field}(id: $id, reason: $reason) { ${FIELDS} } }`,
    variables: (input) => {
      const id = requestId(input);
      const reader = new BodyReader(input.body, { allowEmpty: !reasonRequired });
      const reason = reasonRequired ? reader.string('reason', true) : reader.string('reason');
      reader.done();
      return { id, reason: reason ?? null };
    },
    result: (data) => body(data[field]),
  };
}

const ID_PARAMETER = { id: { schema: REQUEST_ID, description: 'The scope request (scr_…).' } };
const REASON_SCHEMA: JsonSchema = { type: 'string', minLength: 10, maxLength: 1000 };

function route(id: string, method: RouteSpec['method'], path: string, summary: string, successStatus: RouteSpec['successStatus'], scopes: string[], capability: Parameters<typeof capabilityRoute>[0]): Omit<RouteSpec, 'operation'> {
  return { id, method, path, summary, auth: 'bearer', scopes, successStatus, ...capabilityRoute(capability) };
}

/** The scope request routes. */
export const scopeRequestRoutes: RouteSpec[] = [
  {
    ...route('scope-requests.list', 'GET', '/cms/scope-requests', "Scope requests, newest first (paged): the partner's own; operators every partner's", 200, ['cms.partner.read', 'cms.admin'], 'scope-requests.list'),
    operation: list,
    queryParameters: {
      ...PAGE_PARAMETERS,
      status: { schema: { type: 'string', enum: STATUSES }, description: 'Only requests in this state.' },
      partner_gpid: { schema: { type: 'string', pattern: '^CMS-[0-9]{8}$' }, description: "Operators: one partner's requests. A partner naming another partner gets an empty page." },
    },
    responseBody: { type: 'object', required: ['scope_requests', 'next_cursor'], properties: { scope_requests: { type: 'array', items: SCOPE_REQUEST_SCHEMA }, next_cursor: { type: ['string', 'null'] } } },
  },
  {
    ...route('scope-requests.get', 'GET', '/cms/scope-requests/{id}', 'One scope request', 200, ['cms.partner.read', 'cms.admin'], 'scope-requests.list'),
    operation: getOne,
    pathParameters: ID_PARAMETER,
    responseBody: SCOPE_REQUEST_SCHEMA,
  },
  {
    ...route('scope-requests.create', 'POST', '/cms/scope-requests', 'Ask an operator for scopes the partner does not hold, with a reason', 201, ['cms.partner.write'], 'scope-requests.create'),
    operation: create,
    requestBody: {
      type: 'object',
      required: ['scopes', 'reason'],
      description:
        'Each scope must be in the scope catalog or narrower than an entry and not already held (422 naming scopes.<i>), and not in another pending request of the partner (409 naming it).',
      properties: { scopes: { ...SCOPES, minItems: 1, maxItems: 50 }, reason: { ...REASON_SCHEMA, description: 'Why the partner needs them.' } },
    },
    responseBody: SCOPE_REQUEST_SCHEMA,
  },
  {
    ...route('scope-requests.grant', 'POST', '/cms/scope-requests/{id}/grant', "Grant a pending request: its scopes join the partner's grant (operators)", 200, ['cms.admin'], 'scope-requests.decide'),
    operation: decide('grantScopeRequest', false),
    pathParameters: ID_PARAMETER,
    requestBody: { type: 'object', description: 'Optional.', properties: { reason: { ...REASON_SCHEMA, description: 'A note to the partner.' } } },
    responseBody: SCOPE_REQUEST_SCHEMA,
  },
  {
    ...route('scope-requests.refuse', 'POST', '/cms/scope-requests/{id}/refuse', 'Refuse a pending request with a reason (operators)', 200, ['cms.admin'], 'scope-requests.decide'),
    operation: decide('refuseScopeRequest', true),
    pathParameters: ID_PARAMETER,
    requestBody: { type: 'object', required: ['reason'], properties: { reason: { ...REASON_SCHEMA, description: 'Shown to the partner.' } } },
    responseBody: SCOPE_REQUEST_SCHEMA,
  },
];
