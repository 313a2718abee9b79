import { capabilityRoute } from '@svc/platform';
import { SPEC_DEPRECATION } from '../deprecation.js';
import type { HttpMethod, Product, RouteSpec } from './route.js';
import { changelogOperation } from '../catalog/changelog.js';
import { openApiOperation } from '../catalog/openapi.js';
import { postmanCollectionOperation } from '../catalog/postman-collection.js';
import { ROUTE_CATALOG_SCHEMA, routeCatalogOperation } from '../catalog/route-catalog.js';
import { SDK_CATALOG_SCHEMA, sdkCatalogOperation } from '../catalog/sdk-catalog.js';
import {
  CERTIFICATION_PROGRESS_REQUEST,
  CERTIFICATION_SCHEMA,
  CERTIFICATION_SUBMIT_REQUEST,
  certificationProgressOperation,
  certificationSubmitOperation,
} from './legal-and-certification.js';
import { wearableRoutes } from './wearables.js';
import { analyticsRoutes } from './analytics.js';
import {
  legacyDocumentQuery,
  legacyDocumentQuerySchemas,
  legacyPatientDiscovery,
  legacyPatientDiscoverySchemas,
  listExchanges,
  listExchangesSchemas,
  xcaQuery,
  xcaQuerySchemas,
  xcaRetrieve,
  xcaRetrieveSchemas,
  xcaSearch,
  xcaSearchSchemas,
  xcpdDiscover,
  xcpdDiscoverSchemas,
  xcpdSearch,
  xcpdSearchSchemas,
} from './tefca.js';
// Any TEFCA exchange scope reads the caller's own audit log (a peer holding only discover sees its inbound exchanges).
import { TEFCA_SCOPES, tefcaDirectoryRoutes } from './tefca-directory.js';
import { listWebhooks, listWebhooksSchemas, registerWebhook, registerWebhookSchemas, removeWebhook, removeWebhookSchemas } from './webhook-operations.js';


/** The fields every entry of this table shares; each entry adds its operation and schemas. */
function routeBase(id: string, method: HttpMethod, path: string, product: Product, summary: string, scopes: string[] = [], auth: RouteSpec['auth'] = 'bearer'): Omit<RouteSpec, 'operation'> {
  return { id, method, path, product, summary, auth, scopes, successStatus: method === 'POST' ? 201 : 200 };
}

/** The spec's "Other routes named" table and its currently deprecated endpoints. */
export const otherRoutes: RouteSpec[] = [
  {
    ...routeBase('catalog.routes', 'GET', '/api/partner/routes', 'platform', 'Full route catalog; authentication required'),
    rateLimit: { points: 30, per: 'minute' },
    operation: routeCatalogOperation,
    queryParameters: {
      product: { schema: { type: 'string', enum: ['partner-ecosystem', 'identity', 'fhir', 'tefca', 'analytics', 'clearinghouse', 'wearables', 'platform'] }, description: 'Only routes of this product.' },
      implemented: { schema: { type: 'string', enum: ['true', 'false'] }, description: 'Only routes that are (or are not yet) served.' },
      deprecated: { schema: { type: 'string', enum: ['true', 'false'] }, description: 'Only deprecated (or current) routes.' },
    },
    responseBody: ROUTE_CATALOG_SCHEMA,
  },
  {
    ...routeBase('webhooks.register', 'POST', '/api/partner/webhooks', 'partner-ecosystem', 'Register a partner webhook (including TEFCA events)', ['cms.webhooks.manage', 'cms.admin']),
    ...capabilityRoute('webhooks.register'),
    operation: registerWebhook,
    ...registerWebhookSchemas,
  },
  {
    ...routeBase('webhooks.list', 'GET', '/api/partner/webhooks', 'partner-ecosystem', 'List partner webhooks', ['cms.webhooks.manage', 'cms.admin']),
    ...capabilityRoute('webhooks.list'),
    operation: listWebhooks,
    ...listWebhooksSchemas,
  },
  {
    ...routeBase('webhooks.remove', 'DELETE', '/api/partner/webhooks', 'partner-ecosystem', 'Remove a partner webhook (?webhook_id=whk_…)', ['cms.webhooks.manage', 'cms.admin']),
    ...capabilityRoute('webhooks.remove'),
    operation: removeWebhook,
    ...removeWebhookSchemas,
  },
  {
    ...routeBase('certification.submit', 'POST', '/api/partner/certification', 'partner-ecosystem', 'Submit certification to the server', ['cms.partner.write']),
    ...capabilityRoute('certification.submit'),
    operation: certificationSubmitOperation,
    requestBody: CERTIFICATION_SUBMIT_REQUEST,
    responseBody: CERTIFICATION_SCHEMA,
  },
  {
    ...routeBase('certification.progress', 'PUT', '/api/partner/certification/progress', 'partner-ecosystem', 'Sync certification checklist progress', ['cms.partner.write']),
    ...capabilityRoute('certification.progress'),
    operation: certificationProgressOperation,
    requestBody: CERTIFICATION_PROGRESS_REQUEST,
    responseBody: CERTIFICATION_SCHEMA,
  },
  {
    ...routeBase('sdk.catalog.live', 'GET', '/api/cms/sdk-catalog', 'partner-ecosystem', 'Live SDK catalog', ['cms.sdk.read']),
    ...capabilityRoute('sdk.catalog'),
    operation: sdkCatalogOperation,
    responseBody: SDK_CATALOG_SCHEMA,
  },
  {
    ...routeBase('openapi.download', 'GET', '/api/openapi/{spec}', 'platform', 'Download an OpenAPI YAML specification', [], 'none'),
    rateLimit: { points: 60, per: 'minute' },
    operation: openApiOperation,
    responseContentType: 'application/yaml',
    responseBody: { type: 'string', description: 'OpenAPI 3.1 document: <product>.yaml or all.yaml (also .json).' },
  },
  {
    ...routeBase('openapi.postman', 'GET', '/api/openapi/{spec}.postman.json', 'platform', 'Download an OpenAPI specification as a Postman collection', [], 'none'),
    rateLimit: { points: 60, per: 'minute' },
    operation: postmanCollectionOperation,
    pathParameters: { spec: { schema: { type: 'string', examples: ['all', 'identity'] }, description: 'An OpenAPI document name, as in GET /api/openapi/{spec}: a product, or all.' } },
    responseBody: {
      type: 'object',
      description: 'Postman collection v2.1 of the OpenAPI document, with the collection variables baseUrl (this server) and bearerToken (bearer auth of every request but the public ones).',
      required: ['info', 'item'],
      properties: { info: { type: 'object' }, item: { type: 'array', items: { type: 'object' } }, variable: { type: 'array', items: { type: 'object' } }, auth: { type: 'object' } },
    },
  },
  {
    ...routeBase('changelog.rss', 'GET', '/api/changelog/rss', 'platform', 'Changelog RSS feed', [], 'none'),
    ...capabilityRoute('changelog.rss'),
    operation: changelogOperation,
    responseContentType: 'application/rss+xml',
    responseBody: { type: 'string', description: 'RSS 2.0: portal releases and endpoint deprecations, newest first.' },
  },
  // TEFCA exchange (routes/tefca.ts). Exchanges answer 200: they create nothing a client could fetch again.
  { ...routeBase('tefca.xca.retrieve', 'POST', '/tefca/xca/retrieve', 'tefca', 'Document retrieve (ITI-39)', ['tefca.xca.retrieve']), ...capabilityRoute('tefca.xca.retrieve'), successStatus: 200, operation: xcaRetrieve, ...xcaRetrieveSchemas },
  {
    ...routeBase('tefca.exchanges', 'GET', '/tefca/exchanges', 'tefca', 'Partner audit log of TEFCA exchanges', TEFCA_SCOPES),
    ...capabilityRoute('tefca.exchanges'),
    operation: listExchanges,
    ...listExchangesSchemas,
  },
  ...tefcaDirectoryRoutes,
  { ...routeBase('tefca.xcpd.search', 'POST', '/tefca/xcpd/search', 'tefca', 'TEFCA patient discovery, outbound', ['tefca.xcpd.search']), ...capabilityRoute('tefca.xcpd.search'), successStatus: 200, operation: xcpdSearch, ...xcpdSearchSchemas },
  { ...routeBase('tefca.xcpd.discover', 'POST', '/tefca/xcpd/discover', 'tefca', 'TEFCA patient discovery, inbound', ['tefca.xcpd.discover']), ...capabilityRoute('tefca.xcpd.discover'), successStatus: 200, operation: xcpdDiscover, ...xcpdDiscoverSchemas },
  { ...routeBase('tefca.xca.search', 'POST', '/tefca/xca/search', 'tefca', 'TEFCA document query, outbound', ['tefca.xca.search']), ...capabilityRoute('tefca.xca.search'), successStatus: 200, operation: xcaSearch, ...xcaSearchSchemas },
  { ...routeBase('tefca.xca.query', 'POST', '/tefca/xca/query', 'tefca', 'TEFCA document query, inbound', ['tefca.xca.query']), ...capabilityRoute('tefca.xca.query'), successStatus: 200, operation: xcaQuery, ...xcaQuerySchemas },
  ...wearableRoutes,
  // The analytics routes and their deprecated predecessors (analytics.ts).
  ...analyticsRoutes,
  {
    id: 'tefca.v1.patient-discovery',
    method: 'POST',
    path: '/tefca/v1/patient-discovery',
    product: 'tefca',
    summary: 'Legacy TEFCA patient discovery',
    auth: 'bearer',
    // Either successor's scope: the body decides which successor runs, and its GraphQL field checks its own scope.
    scopes: ['tefca.xcpd.search', 'tefca.xcpd.discover'],
    successStatus: 200,
    deprecated: { ...SPEC_DEPRECATION, successors: [{ method: 'POST', path: '/tefca/xcpd/search' }, { method: 'POST', path: '/tefca/xcpd/discover' }] },
    operation: legacyPatientDiscovery,
    ...legacyPatientDiscoverySchemas,
  },
  {
    id: 'tefca.v1.document-query',
    method: 'POST',
    path: '/tefca/v1/document-query',
    product: 'tefca',
    summary: 'Legacy TEFCA document query',
    auth: 'bearer',
    scopes: ['tefca.xca.search', 'tefca.xca.query'],
    successStatus: 200,
    deprecated: { ...SPEC_DEPRECATION, successors: [{ method: 'POST', path: '/tefca/xca/search' }, { method: 'POST', path: '/tefca/xca/query' }] },
    operation: legacyDocumentQuery,
    ...legacyDocumentQuerySchemas,
  },
];
