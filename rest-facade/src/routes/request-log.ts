import { capabilityRoute } from '@svc/platform';
import { failOn, PAGE_PARAMETERS, pageBody, readPage } from './page-query.js';
import type { GatewayOperation, JsonSchema, RouteSpec } from './route.js';

/**
 * `GET /api/partner/requests`: the caller's partner's own recent API requests, through
 * Query.apiRequestLog (the same scopes, capability and counter as on GraphQL). Filters are checked
 * here under their REST names, then again by the subgraph.
 */

const FIELDS = 'occurredAt method route status requestId latencyMs credentialId credentialKind';
const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const CREDENTIAL_ID = /^(tok|ses|cli)_[0-9a-z]{1,40}$/;

interface Row {
  occurredAt: string;
  method: string;
  route: string;
  status: number;
  requestId: string;
  latencyMs: number;
  credentialId: string | null;
  credentialKind: string;
}

const listRequests: GatewayOperation = {
  document: `query ApiRequestLog($first: Int, $after: String, $statusClass: String, $method: String, $credentialId: String, $since: DateTime, $until: DateTime) {
  apiRequestLog(first: $first, after: $after, statusClass: $statusClass, method: $method, credentialId: $credentialId, since: $since, until: $until) { edges { node { ${FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
  variables: ({ query }) => {
    const { first, after, errors } = readPage(query, { known: ['status_class', 'method', 'credential_id', 'since', 'until'], cursorKey: (key) => /^\d{1,20}$/.test(key) });
    const one = (name: string): string | null => {
      const v = query[name];
      if (v === undefined || v === '') return null;
      if (Array.isArray(v)) {
        errors.push({ field: name, message: 'must be given once' });
        return null;
      }
      return v;
    };
    const statusClass = one('status_class');
    if (statusClass !== null && !STATUS_CLASSES.includes(statusClass)) errors.push({ field: 'status_class', message: `must be one of ${STATUS_CLASSES.join(', ')}` });
    const method = one('method')?.toUpperCase() ?? null;
    if (method !== null && !METHODS.includes(method)) errors.push({ field: 'method', message: `must be one of ${METHODS.join(', ')}` });
    const credentialId = one('credential_id');
    if (credentialId !== null && !CREDENTIAL_ID.test(credentialId)) errors.push({ field: 'credential_id', message: 'must be a credential id (tok_…, cli_…, ses_…)' });
    const instant = (name: string): string | null => {
      const v = one(name);
      if (v !== null && (!/^\d{4}-\d{2}-\d{2}T/.test(v) || Number.isNaN(Date.parse(v)))) errors.push({ field: name, message: 'must be an ISO 8601 date-time (2026-01-31T12:00:00Z)' });
      return v;
    };
    const since = instant('since');
    const until = instant('until');
    failOn(errors);
    return { first, after, statusClass, method, credentialId, since, until };
  },
  result: (data) => {
    const page = pageBody(data['apiRequestLog'] as Parameters<typeof pageBody<Row>>[0], (r) => ({
      occurred_at: r.occurredAt,
      method: r.method,
      route: r.route,
      status: r.status,
      request_id: r.requestId,
      latency_ms: r.latencyMs,
      credential_id: r.credentialId,
      credential_kind: r.credentialKind,
    }));
    return { requests: page.items, next_cursor: page.next_cursor };
  },
};

const REQUEST_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['occurred_at', 'method', 'route', 'status', 'request_id', 'latency_ms', 'credential_id', 'credential_kind'],
  properties: {
    occurred_at: { type: 'string', format: 'date-time' },
    method: { type: 'string' },
    route: { type: 'string', description: 'The route template (/api/identity/{gpid}, /graphql), never the query string.' },
    status: { type: 'integer' },
    request_id: { type: 'string', description: 'The X-Request-Id of the answer.' },
    latency_ms: { type: 'integer' },
    credential_id: { type: ['string', 'null'], description: 'tok_… (API token), cli_… (OAuth client), ses_… (portal session).' },
    credential_kind: { type: 'string', enum: ['api_token', 'oauth_client', 'portal_session', 'operator'] },
  },
};

export const requestLogRoutes: RouteSpec[] = [
  {
    id: 'requests.log',
    method: 'GET',
    path: '/api/partner/requests',
    ...capabilityRoute('requests.log'),
    summary: "Your partner's own recent API requests, newest first (paged, filterable; never bodies, query strings or secrets)",
    auth: 'bearer',
    scopes: ['cms.tokens.manage', 'cms.pipeline.read'],
    successStatus: 200,
    operation: listRequests,
    queryParameters: {
      ...PAGE_PARAMETERS,
      status_class: { schema: { type: 'string', enum: STATUS_CLASSES }, description: 'Only answers of one status class.' },
      method: { schema: { type: 'string', enum: METHODS }, description: 'Only one HTTP method.' },
      credential_id: { schema: { type: 'string', pattern: '^(tok|ses|cli)_[0-9a-z]+$' }, description: 'Only the requests of one credential.' },
      since: { schema: { type: 'string', format: 'date-time' }, description: 'Only requests at or after this instant.' },
      until: { schema: { type: 'string', format: 'date-time' }, description: 'Only requests before this instant.' },
    },
    responseBody: {
      type: 'object',
      description:
        'Entries are written within seconds of the answer, kept SVC_REQUEST_LOG_RETENTION_HOURS (72 by default) and at most SVC_REQUEST_LOG_MAX_PER_PARTNER (10,000) per partner; older ones are pruned.',
      required: ['requests', 'next_cursor'],
      properties: { requests: { type: 'array', items: REQUEST_SCHEMA }, next_cursor: { type: ['string', 'null'] } },
    },
  },
];
