import { capabilityRoute, DomainError, isId, validationError } from '@svc/platform';
import type { GatewayOperation, JsonSchema, RouteInput, RouteSpec } from './route.js';
import { snakeKeys } from './snake-case.js';
import { COMMUNITY_ID, EXCHANGE_FIELDS, EXCHANGE_ID, EXCHANGE_SCHEMA } from './tefca.js';

/**
 * The TEFCA network directory and one exchange of the audit log, beside GET /tefca/exchanges: the
 * pipeline subgraph's tefcaCommunities and tefcaExchange. Any TEFCA exchange scope reads them, and
 * they spend the audit log's capability (tefca.exchanges) on both doors. Another partner's exchange
 * answers 404 exactly like a missing one, as on GraphQL.
 */

/** Any TEFCA exchange scope (the GraphQL fields accept the same). */
export const TEFCA_SCOPES = ['tefca.xcpd.search', 'tefca.xcpd.discover', 'tefca.xca.search', 'tefca.xca.query', 'tefca.xca.retrieve'];

const COMMUNITY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['home_community_id', 'name', 'capabilities', 'self', 'sandbox'],
  properties: {
    home_community_id: COMMUNITY_ID,
    name: { type: 'string' },
    base_url: { type: ['string', 'null'], description: 'Where its exchange endpoints live (null for this community).' },
    capabilities: { type: 'array', items: { type: 'string', enum: ['xcpd', 'xca'] }, description: 'xcpd (patient discovery), xca (document query and retrieve).' },
    self: { type: 'boolean', description: 'True for this community.' },
    sandbox: { type: 'boolean', description: 'True for the built-in sandbox peer community (synthetic sample data, no real person; never in production).' },
  },
};

/** A route that takes no query parameters: any given is named in a 422. */
function noQuery(input: RouteInput): void {
  const given = Object.keys(input.query);
  if (given.length > 0) throw validationError(given.map((field) => ({ field, message: 'is not a parameter of this route (it takes none)' })));
}

const communities: GatewayOperation = {
  document: 'query TefcaCommunities { tefcaCommunities { homeCommunityId name baseUrl capabilities self sandbox } }',
  variables: (input) => {
    noQuery(input);
    return {};
  },
  result: (data) => ({ communities: snakeKeys(data['tefcaCommunities']) }),
};

const exchange: GatewayOperation = {
  document: `query TefcaExchange($exchangeId: ID!) { tefcaExchange(exchangeId: $exchangeId) { ${EXCHANGE_FIELDS} } }`,
  variables: (input) => {
    noQuery(input);
    const id = input.params['exchange_id'] ?? '';
    if (!isId('xch', id)) throw validationError([{ field: 'exchange_id', message: 'must be an exchange id (xch_…)' }], 'The exchange id is malformed.');
    return { exchangeId: id };
  },
  result: (data, input) => {
    if (!data['tefcaExchange']) throw new DomainError('NOT_FOUND', `Exchange ${input.params['exchange_id']} does not exist.`);
    return snakeKeys(data['tefcaExchange']);
  },
};

export const tefcaDirectoryRoutes: RouteSpec[] = [
  {
    id: 'tefca.communities',
    method: 'GET',
    path: '/tefca/communities',
    ...capabilityRoute('tefca.exchanges'),
    summary: 'The TEFCA network directory: this community first, then its peers (credentials are never shown)',
    auth: 'bearer',
    scopes: TEFCA_SCOPES,
    successStatus: 200,
    operation: communities,
    responseBody: { type: 'object', required: ['communities'], properties: { communities: { type: 'array', items: COMMUNITY_SCHEMA } } },
  },
  {
    id: 'tefca.exchange',
    method: 'GET',
    path: '/tefca/exchanges/{exchange_id}',
    ...capabilityRoute('tefca.exchanges'),
    summary: "One exchange of the caller's TEFCA audit log (operators: any partner's)",
    auth: 'bearer',
    scopes: TEFCA_SCOPES,
    successStatus: 200,
    operation: exchange,
    pathParameters: { exchange_id: { schema: EXCHANGE_ID, description: 'The exchange (xch_…), as an exchange answered it or GET /tefca/exchanges lists it.' } },
    responseBody: { ...EXCHANGE_SCHEMA, required: ['exchange_id', 'kind', 'direction', 'outcome', 'started_at'] },
  },
];
