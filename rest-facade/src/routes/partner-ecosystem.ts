import { capabilityRoute, decodeOptionalCursor, DomainError, invalidCursor, isOperator, isPartnerGpid, validationError } from '@svc/platform';
import type { RouteSpec } from './route.js';
import { snakeKeys } from './snake-case.js';
import {
  authorizationServerMetadata,
  authorizationServerMetadataSchemas,
  createToken,
  createTokenSchemas,
  jwks,
  jwksSchemas,
  listTokensSchemas,
  partnerLogin,
  partnerLoginSchemas,
  registerClient,
  registerClientSchemas,
  revokeToken,
  revokeTokenSchemas,
  tokenExchange,
  tokenExchangeSchemas,
} from './credential-operations.js';
import { SDK_CATALOG_SCHEMA, sdkCatalogOperation } from '../catalog/sdk-catalog.js';
import { updatePartnerScopes, updatePartnerScopesSchemas } from './partner-scope-grant-operation.js';
import { listClients, listClientsSchemas, rotateClientSecret, rotateClientSecretSchemas } from './oauth-client-operations.js';
import { rateLimitUsage, rateLimitUsageSchemas } from './rate-limit-usage-operation.js';

const TOKEN_FIELDS = 'tokenId partnerGpid name scopes createdAt expiresAt lastUsedAt lastUsedRoute environment';
const METRIC_FIELDS = 'window since jobsTotal jobsCompleted jobsFailed jobsInFlight recordsProcessed successRate lastCompletedAt lastFailedAt errorCodes { code count }';
const PIPELINE_PARTNERS_DOC = `query PipelinePartners($first: Int, $after: String, $window: String) { partners(first: $first, after: $after) { edges { node { gpid legalName pipelineMetrics(window: $window) { ${METRIC_FIELDS} } } } pageInfo { hasNextPage endCursor } } }`;
const PIPELINE_PARTNER_DOC = `query PipelinePartner($gpid: ID!, $window: String) { partner(gpid: $gpid) { gpid legalName pipelineMetrics(window: $window) { ${METRIC_FIELDS} } } }`;

interface MetricsRow {
  window: string;
  since: string;
  jobsTotal: number;
  jobsCompleted: number;
  jobsFailed: number;
  jobsInFlight: number;
  recordsProcessed: number;
  successRate: number | null;
  lastCompletedAt: string | null;
  lastFailedAt: string | null;
  errorCodes: { code: string; count: number }[];
}
interface PartnerRow {
  gpid: string;
  legalName: string;
  pipelineMetrics: MetricsRow;
}

/** Query parameters of GET /cms/pipeline/partners; any other is refused by name. */
const PIPELINE_PARTNERS_PARAMS = new Set(['window', 'limit', 'cursor']);

/** Per-partner pipeline metrics from a partner (partner subgraph) and its stored sync jobs (pipeline subgraph), one query. */
function partnerMetrics(p: PartnerRow) {
  const m = p.pipelineMetrics;
  return {
    partner_gpid: p.gpid,
    legal_name: p.legalName,
    window: m.window,
    since: m.since,
    jobs_total: m.jobsTotal,
    jobs_completed: m.jobsCompleted,
    jobs_failed: m.jobsFailed,
    jobs_in_flight: m.jobsInFlight,
    records_processed: m.recordsProcessed,
    sync_success_rate: m.successRate,
    last_completed_at: m.lastCompletedAt,
    last_failed_at: m.lastFailedAt,
    error_codes: m.errorCodes,
  };
}

/** The spec's "Partner ecosystem" table. */
export const partnerEcosystemRoutes: RouteSpec[] = [
  { id: 'partner.login', method: 'POST', path: '/cms/partner-login', ...capabilityRoute('partner.login'), summary: 'Partner authentication', auth: 'none', scopes: [], successStatus: 200, latency: ['180ms', '450ms'], operation: partnerLogin, ...partnerLoginSchemas },
  { id: 'tokens.create', method: 'POST', path: '/cms/tokens', ...capabilityRoute('tokens.create'), summary: 'Create scoped token', auth: 'bearer', scopes: ['cms.tokens.manage'], successStatus: 201, latency: ['120ms', '300ms'], operation: createToken, ...createTokenSchemas },
  {
    id: 'tokens.list',
    method: 'GET',
    path: '/cms/tokens',
    ...capabilityRoute('tokens.list'),
    summary: 'List active tokens',
    auth: 'bearer',
    scopes: ['cms.tokens.manage'],
    successStatus: 200,
    latency: ['50ms', '130ms'],
    operation: {
      document: `query ListTokens { apiTokens { ${TOKEN_FIELDS} } }`,
      result: (data) => ({ tokens: snakeKeys(data['apiTokens']) }),
    },
    ...listTokensSchemas,
  },
  { id: 'tokens.revoke', method: 'DELETE', path: '/cms/tokens', ...capabilityRoute('tokens.revoke'), summary: 'Revoke token', auth: 'bearer', scopes: ['cms.tokens.manage'], successStatus: 200, latency: ['60ms', '150ms'], operation: revokeToken, ...revokeTokenSchemas },
  { id: 'oauth.register', method: 'POST', path: '/cms/oauth/register', ...capabilityRoute('oauth.register'), summary: 'Register OAuth client', auth: 'bearer', scopes: ['cms.tokens.manage'], successStatus: 201, latency: ['200ms', '500ms'], operation: registerClient, ...registerClientSchemas },
  // Not in the spec's table: the clients registered above, and a new secret for one.
  { id: 'oauth.clients.list', method: 'GET', path: '/cms/oauth/clients', ...capabilityRoute('oauth.clients.list'), summary: 'List OAuth clients', auth: 'bearer', scopes: ['cms.tokens.manage'], successStatus: 200, operation: listClients, ...listClientsSchemas },
  {
    id: 'oauth.clients.rotate-secret',
    method: 'POST',
    path: '/cms/oauth/clients/{client_id}/secret',
    ...capabilityRoute('oauth.clients.rotate-secret'),
    summary: 'Rotate an OAuth client secret',
    auth: 'bearer',
    scopes: ['cms.tokens.manage'],
    successStatus: 200,
    operation: rotateClientSecret,
    ...rotateClientSecretSchemas,
  },
  {
    id: 'oauth.token',
    method: 'POST',
    path: '/oauth/token',
    ...capabilityRoute('oauth.token'),
    summary: 'OAuth token exchange',
    auth: 'none',
    scopes: [],
    successStatus: 200,
    latency: ['100ms', '250ms'],
    errorFormat: 'oauth',
    requestContentType: 'application/x-www-form-urlencoded',
    operation: tokenExchange,
    ...tokenExchangeSchemas,
  },
  // Not in the spec's table: the discovery documents every OAuth client library looks for.
  { id: 'oauth.jwks', method: 'GET', path: '/.well-known/jwks.json', ...capabilityRoute('oauth.jwks'), summary: 'Public keys of OAuth access tokens (JWK Set)', auth: 'none', scopes: [], successStatus: 200, operation: jwks, ...jwksSchemas },
  {
    id: 'oauth.metadata',
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    ...capabilityRoute('oauth.metadata'),
    summary: 'OAuth authorization server metadata (RFC 8414)',
    auth: 'none',
    scopes: [],
    successStatus: 200,
    operation: authorizationServerMetadata,
    ...authorizationServerMetadataSchemas,
  },
  {
    id: 'pipeline.health',
    method: 'GET',
    path: '/cms/pipeline/health',
    ...capabilityRoute('pipeline.health'),
    summary: 'Pipeline health status',
    auth: 'bearer',
    scopes: ['cms.pipeline.read', 'cms.admin'],
    successStatus: 200,
    latency: ['80ms', '200ms'],
    operation: {
      document: 'query PipelineHealth($partnerGpid: ID) { pipelineHealth(partnerGpid: $partnerGpid) { status reasons database eventStream { mode status } consumers { name status unacknowledged oldestAgeSeconds } webhooks { status pending due oldestPendingAgeSeconds windowMinutes attempts failedAttempts failureRate } windowHours jobsCompleted jobsFailed jobsInFlight jobsStuck successRate } }',
      variables: ({ query }) => ({ partnerGpid: typeof query['partner_gpid'] === 'string' ? query['partner_gpid'] : null }),
      result: (data) => snakeKeys(data['pipelineHealth']),
    },
  },
  {
    id: 'pipeline.partners',
    method: 'GET',
    path: '/cms/pipeline/partners',
    ...capabilityRoute('pipeline.partners'),
    summary: 'Per-partner pipeline metrics',
    auth: 'bearer',
    scopes: ['cms.pipeline.read', 'cms.admin'],
    successStatus: 200,
    latency: ['120ms', '350ms'],
    queryParameters: {
      window: { schema: { type: 'string', enum: ['1h', '24h', '7d', '30d'], default: '24h' }, description: 'Trailing window of the metrics (jobs created in it); last_completed_at and last_failed_at are of all time.' },
      limit: { schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, description: 'Operators: partners per page.' },
      cursor: { schema: { type: 'string' }, description: 'Operators: next_cursor of the previous page.' },
    },
    operation: {
      // Operators page through every partner; a partner sees itself.
      // Metrics are computed by the pipeline subgraph over the stored jobs (Partner.pipelineMetrics, the GraphQL twin).
      document: (principal) => (isOperator(principal) ? PIPELINE_PARTNERS_DOC : PIPELINE_PARTNER_DOC),
      documents: [PIPELINE_PARTNERS_DOC, PIPELINE_PARTNER_DOC],
      variables: ({ query, principal }) => {
        // A cursor this API did not issue is refused by name for every caller, before any lookup.
        const raw = query['cursor'];
        if (raw !== undefined && typeof raw !== 'string') throw invalidCursor('cursor');
        const cursor = raw ?? null;
        decodeOptionalCursor(cursor, { argument: 'cursor', isKey: isPartnerGpid });
        const unknown = Object.keys(query).filter((k) => !PIPELINE_PARTNERS_PARAMS.has(k));
        if (unknown.length > 0) throw validationError(unknown.map((field) => ({ field, message: `is not a parameter of this route (known: ${[...PIPELINE_PARTNERS_PARAMS].join(', ')})` })));
        // The window's values are checked by the pipeline subgraph (the same check as on GraphQL); here only its form.
        const rawWindow = query['window'];
        if (Array.isArray(rawWindow)) throw validationError([{ field: 'window', message: 'must be given once' }]);
        const window = rawWindow ?? '24h';
        if (!isOperator(principal)) return { gpid: principal.partnerGpid, window };
        const first = query['limit'] === undefined ? 20 : Number(query['limit']);
        if (!Number.isInteger(first) || first < 1 || first > 100) {
          throw new DomainError('VALIDATION_ERROR', 'The query is invalid.', { fieldErrors: [{ field: 'limit', message: 'must be an integer from 1 to 100' }] });
        }
        return { first, after: cursor, window };
      },
      result: (data): unknown => {
        const connection = data['partners'] as { edges: { node: PartnerRow }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } | undefined;
        if (connection) {
          return { partners: connection.edges.map((e) => partnerMetrics(e.node)), next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null };
        }
        const partner = data['partner'] as PartnerRow | null;
        return { partners: partner ? [partnerMetrics(partner)] : [], next_cursor: null };
      },
    },
  },
  // Not in the spec's table: operators change which scopes a partner holds.
  {
    id: 'partners.scopes.update',
    method: 'PUT',
    path: '/cms/partners/{gpid}/scopes',
    ...capabilityRoute('partners.scopes.update'),
    summary: "Replace a partner's granted scopes (operators)",
    auth: 'bearer',
    scopes: ['cms.admin'],
    successStatus: 200,
    operation: updatePartnerScopes,
    ...updatePartnerScopesSchemas,
  },
  // Not in the spec's table: a partner's standing against its rate limits (the portal's usage chart).
  {
    id: 'partners.rate-limits',
    method: 'GET',
    path: '/cms/partners/{gpid}/rate-limits',
    ...capabilityRoute('partners.rate-limits'),
    summary: "A partner's rate-limit usage",
    auth: 'bearer',
    scopes: ['cms.partner.read', 'cms.pipeline.read', 'cms.tokens.manage', 'cms.admin'],
    successStatus: 200,
    operation: rateLimitUsage,
    ...rateLimitUsageSchemas,
  },
  { id: 'sdk.catalog', method: 'GET', path: '/cms-ecosystem/sdk-catalog', ...capabilityRoute('sdk.catalog'), summary: 'SDK catalog', auth: 'bearer', scopes: ['cms.sdk.read'], successStatus: 200, latency: ['30ms', '80ms'], operation: sdkCatalogOperation, responseBody: SDK_CATALOG_SCHEMA },
];
