import { capabilityRoute, DomainError, isId, validationError } from '@svc/platform';
import type { GatewayOperation, JsonSchema, RouteInput, RouteSpec } from './route.js';
import { BodyReader } from './body-readers.js';
import { failOn, PAGE_PARAMETERS, pageBody, readPage } from './page-query.js';
import { snakeKeys } from './snake-case.js';
import { WEBHOOK_FIELDS, WEBHOOK_ID, WEBHOOK_SCHEMA } from './webhook-operations.js';

/**
 * Managing one webhook endpoint (ours; the spec names the delivery log and test.ping as portal
 * features): the pipeline subgraph's webhook, sendWebhookTestPing, deliveries, webhookDelivery,
 * redeliverWebhookDelivery, rotateWebhookSecret, enableWebhook and webhookEventTypes. Another
 * partner's endpoint or delivery answers 404 exactly like a missing one, as on GraphQL.
 */

const SCOPES = ['cms.webhooks.manage', 'cms.admin'];
const DELIVERY_ID: JsonSchema = { type: 'string', pattern: '^dlv_[0-9a-z]{26}$' };
const DELIVERY_FIELDS = 'deliveryId webhookId eventId eventType sample status attempts nextAttemptAt lastStatusCode lastError createdAt completedAt';
const ATTEMPT_FIELDS = 'attempt trigger attemptedAt statusCode latencyMs responseExcerpt error nextRetryAt probeStatusCode signatureCheck';
const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'failed', 'cancelled'];
const NULLABLE_TIMESTAMP: JsonSchema = { type: ['string', 'null'], format: 'date-time' };

const DELIVERY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['delivery_id', 'webhook_id', 'event_id', 'event_type', 'status', 'attempts', 'created_at'],
  properties: {
    delivery_id: { ...DELIVERY_ID, description: 'The webhook-id header: the same on every attempt and redelivery.' },
    webhook_id: WEBHOOK_ID,
    event_id: { type: 'string' },
    event_type: { type: 'string' },
    sample: { type: 'boolean', description: 'A sample sent on request (POST …/samples), not an event that happened.' },
    status: { type: 'string', enum: DELIVERY_STATUSES },
    attempts: { type: 'integer' },
    next_attempt_at: NULLABLE_TIMESTAMP,
    last_status_code: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    completed_at: NULLABLE_TIMESTAMP,
  },
};

const DELIVERY_DETAIL_SCHEMA: JsonSchema = {
  ...DELIVERY_SCHEMA,
  properties: {
    ...(DELIVERY_SCHEMA['properties'] as Record<string, JsonSchema>),
    body: { type: 'string', description: 'The exact JSON body sent on every attempt.' },
    log: {
      type: 'array',
      description: 'Every attempt, oldest first.',
      items: {
        type: 'object',
        properties: {
          attempt: { type: 'integer' },
          trigger: { type: 'string', enum: ['schedule', 'manual'] },
          attempted_at: { type: 'string', format: 'date-time' },
          status_code: { type: ['integer', 'null'] },
          latency_ms: { type: 'integer' },
          response_excerpt: { type: ['string', 'null'] },
          error: { type: ['string', 'null'] },
          next_retry_at: NULLABLE_TIMESTAMP,
          probe_status_code: { type: ['integer', 'null'], description: 'test.ping answered 2xx: the status given to the same body under a wrong key (0: no answer).' },
          signature_check: { type: 'string', enum: ['verified', 'not_verified', 'not_checked'], description: 'verified: the mis-signed probe was refused with 4xx.' },
        },
      },
    },
  },
};

const SECRET_SCHEMA: JsonSchema = {
  ...WEBHOOK_SCHEMA,
  required: [...(WEBHOOK_SCHEMA['required'] as string[]), 'secret'],
  properties: { ...(WEBHOOK_SCHEMA['properties'] as Record<string, JsonSchema>), secret: { type: 'string', description: 'The new whsec_… secret: shown in this answer only.' } },
};

const PATH_PARAMETERS = {
  webhook_id: { schema: WEBHOOK_ID, description: 'The endpoint (whk_…).' },
  delivery_id: { schema: DELIVERY_ID, description: 'The delivery (dlv_…), one of this endpoint.' },
};

/** The path's webhook id; a malformed one is a 422 naming it. */
function webhookId(input: RouteInput): string {
  const id = input.params['webhook_id'] ?? '';
  if (!isId('whk', id)) throw validationError([{ field: 'webhook_id', message: 'must be a webhook id (whk_…)' }], 'The webhook id is malformed.');
  return id;
}

function deliveryId(input: RouteInput): string {
  const id = input.params['delivery_id'] ?? '';
  if (!isId('dlv', id)) throw validationError([{ field: 'delivery_id', message: 'must be a delivery id (dlv_…)' }], 'The delivery id is malformed.');
  return id;
}

const missingWebhook = (input: RouteInput) => new DomainError('NOT_FOUND', `Webhook ${input.params['webhook_id']} does not exist.`);
const missingDelivery = (input: RouteInput) => new DomainError('NOT_FOUND', `Delivery ${input.params['delivery_id']} does not exist.`);

/** REST spelling of a delivery: snake_case keys, the status in lower case. */
function deliveryBody(delivery: unknown): Record<string, unknown> {
  const body = snakeKeys(delivery) as Record<string, unknown>;
  if (typeof body['status'] === 'string') body['status'] = body['status'].toLowerCase();
  if (Array.isArray(body['log'])) {
    for (const attempt of body['log'] as Record<string, unknown>[]) if (typeof attempt['signature_check'] === 'string') attempt['signature_check'] = attempt['signature_check'].toLowerCase();
  }
  return body;
}

/** A request with no body, or an empty JSON object: these actions take no input. */
function noBody(input: RouteInput): void {
  new BodyReader(input.body, { allowEmpty: true }).done();
  const extra = input.body && typeof input.body === 'object' ? Object.keys(input.body) : [];
  if (extra.length > 0) throw validationError(extra.map((field) => ({ field, message: 'is not a field of this request (it takes no body)' })));
}

const getWebhook: GatewayOperation = {
  document: `query Webhook($webhookId: ID!) { webhook(webhookId: $webhookId) { ${WEBHOOK_FIELDS} } }`,
  variables: (input) => ({ webhookId: webhookId(input) }),
  result: (data, input) => {
    const webhook = data['webhook'];
    if (!webhook) throw missingWebhook(input);
    return snakeKeys(webhook);
  },
};

const sendTestPing: GatewayOperation = {
  document: `mutation SendWebhookTestPing($webhookId: ID!) { sendWebhookTestPing(webhookId: $webhookId) { ${DELIVERY_FIELDS} } }`,
  variables: (input) => {
    noBody(input);
    return { webhookId: webhookId(input) };
  },
  result: (data) => deliveryBody(data['sendWebhookTestPing']),
};

const UPDATE_FIELDS = ['url', 'event_types', 'description'];

const update: GatewayOperation = {
  document: `mutation UpdateWebhook($webhookId: ID!, $input: UpdateWebhookInput!) { updateWebhook(webhookId: $webhookId, input: $input) { ${WEBHOOK_FIELDS} } }`,
  variables: (input) => {
    const reader = new BodyReader(input.body);
    const url = reader.string('url');
    const eventTypes = reader.stringArray('event_types');
    const rawDescription = reader.raw('description');
    if (rawDescription !== undefined && rawDescription !== null && typeof rawDescription !== 'string') reader.fail('description', 'must be a string or null');
    const body = (input.body ?? {}) as Record<string, unknown>;
    for (const key of Object.keys(body)) if (!UPDATE_FIELDS.includes(key)) reader.fail(key, 'is not a field of this request (expected url, event_types or description)');
    if (url === undefined && eventTypes === undefined && rawDescription === undefined) reader.fail('url', 'nothing to change: give url, event_types or description');
    reader.done();
    // null clears the description, as an empty string does on GraphQL.
    const description = rawDescription === null ? '' : typeof rawDescription === 'string' ? rawDescription : undefined;
    return { webhookId: webhookId(input), input: { ...(url !== undefined ? { url } : {}), ...(eventTypes !== undefined ? { eventTypes } : {}), ...(description !== undefined ? { description } : {}) } };
  },
  result: (data) => snakeKeys(data['updateWebhook']),
};

const sendSample: GatewayOperation = {
  document: `mutation SendWebhookSample($webhookId: ID!, $eventType: String!) { sendWebhookSample(webhookId: $webhookId, eventType: $eventType) { ${DELIVERY_FIELDS} } }`,
  variables: (input) => {
    const reader = new BodyReader(input.body);
    const eventType = reader.string('event_type', true);
    const body = (input.body ?? {}) as Record<string, unknown>;
    for (const key of Object.keys(body)) if (key !== 'event_type') reader.fail(key, 'is not a field of this request (expected event_type)');
    reader.done();
    return { webhookId: webhookId(input), eventType };
  },
  result: (data) => deliveryBody(data['sendWebhookSample']),
};

const DELIVERIES_DOC = `query WebhookDeliveries($webhookId: ID!, $first: Int, $after: String, $status: WebhookDeliveryStatus) {
  webhook(webhookId: $webhookId) { webhookId deliveries(first: $first, after: $after, status: $status) { edges { node { ${DELIVERY_FIELDS} } } pageInfo { hasNextPage endCursor } } } }`;

const listDeliveries: GatewayOperation = {
  document: DELIVERIES_DOC,
  variables: (input) => {
    const id = webhookId(input);
    const { first, after, errors } = readPage(input.query, { known: ['status'], cursorKey: 'dlv' });
    const status = input.query['status'];
    if (Array.isArray(status)) errors.push({ field: 'status', message: 'must be given once' });
    else if (status !== undefined && !DELIVERY_STATUSES.includes(status)) errors.push({ field: 'status', message: `must be one of ${DELIVERY_STATUSES.join(', ')}` });
    failOn(errors);
    return { webhookId: id, first, after, status: typeof status === 'string' ? status.toUpperCase() : null };
  },
  result: (data, input) => {
    const webhook = data['webhook'] as { deliveries: Parameters<typeof pageBody<unknown>>[0] } | null;
    if (!webhook) throw missingWebhook(input);
    const page = pageBody(webhook.deliveries, deliveryBody);
    return { deliveries: page.items, next_cursor: page.next_cursor };
  },
};

const getDelivery: GatewayOperation = {
  document: `query WebhookDelivery($deliveryId: ID!) { webhookDelivery(deliveryId: $deliveryId) { ${DELIVERY_FIELDS} body log { ${ATTEMPT_FIELDS} } } }`,
  variables: (input) => {
    webhookId(input);
    return { deliveryId: deliveryId(input) };
  },
  result: (data, input) => {
    const delivery = data['webhookDelivery'] as { webhookId: string } | null;
    // A delivery of another endpoint is not under this path: the same 404 as a missing one.
    if (!delivery || delivery.webhookId !== input.params['webhook_id']) throw missingDelivery(input);
    return deliveryBody(delivery);
  },
};

const redeliver: GatewayOperation = {
  document: `mutation RedeliverWebhookDelivery($deliveryId: ID!, $webhookId: ID) { redeliverWebhookDelivery(deliveryId: $deliveryId, webhookId: $webhookId) { ${DELIVERY_FIELDS} } }`,
  variables: (input) => {
    noBody(input);
    return { webhookId: webhookId(input), deliveryId: deliveryId(input) };
  },
  result: (data) => deliveryBody(data['redeliverWebhookDelivery']),
};

const rotateSecret: GatewayOperation = {
  document: `mutation RotateWebhookSecret($webhookId: ID!, $overlapSeconds: Int) { rotateWebhookSecret(webhookId: $webhookId, overlapSeconds: $overlapSeconds) { secret webhook { ${WEBHOOK_FIELDS} } } }`,
  variables: (input) => {
    const reader = new BodyReader(input.body, { allowEmpty: true });
    const overlapSeconds = reader.integer('overlap_seconds');
    const body = (input.body ?? {}) as Record<string, unknown>;
    for (const key of typeof body === 'object' ? Object.keys(body) : []) if (key !== 'overlap_seconds') reader.fail(key, 'is not a field of this request (expected overlap_seconds)');
    reader.done();
    return { webhookId: webhookId(input), overlapSeconds: overlapSeconds ?? null };
  },
  result: (data) => {
    const rotated = data['rotateWebhookSecret'] as { secret: string; webhook: unknown };
    return { ...(snakeKeys(rotated.webhook) as Record<string, unknown>), secret: rotated.secret };
  },
};

/** Enable or disable one endpoint: no body, the endpoint in the path, the endpoint answered. */
function switchEndpoint(field: 'enableWebhook' | 'disableWebhook'): GatewayOperation {
  const operation = `${field[0]!.toUpperCase()}${field.slice(1)}`;
  return {
    document: `mutation ${operation}($webhookId: ID!) { ${field}(webhookId: $webhookId) { ${WEBHOOK_FIELDS} } }`,
    variables: (input) => {
      noBody(input);
      return { webhookId: webhookId(input) };
    },
    result: (data) => snakeKeys(data[field]),
  };
}

const enable = switchEndpoint('enableWebhook');
const disable = switchEndpoint('disableWebhook');

const eventTypes: GatewayOperation = {
  document: 'query WebhookEventTypes { webhookEventTypes { type category description status } }',
  result: (data) => ({ event_types: data['webhookEventTypes'] }),
};

function route(id: string, method: RouteSpec['method'], path: string, summary: string, successStatus: RouteSpec['successStatus'], scopes: string[] = SCOPES): Omit<RouteSpec, 'operation'> {
  return { id, method, path, summary, auth: 'bearer', scopes, successStatus, ...capabilityRoute('webhooks.manage') };
}

/** The webhook management routes. */
export const webhookManagementRoutes: RouteSpec[] = [
  {
    ...route('webhooks.get', 'GET', '/api/partner/webhooks/{webhook_id}', 'One partner webhook', 200),
    operation: getWebhook,
    pathParameters: { webhook_id: PATH_PARAMETERS.webhook_id },
    responseBody: WEBHOOK_SCHEMA,
  },
  {
    ...route('webhooks.update', 'PATCH', '/api/partner/webhooks/{webhook_id}', "Change an endpoint's URL, event types or description (same rules as registration)", 200),
    operation: update,
    pathParameters: { webhook_id: PATH_PARAMETERS.webhook_id },
    requestBody: {
      type: 'object',
      description: 'At least one field; a field left out keeps its value. A new URL must pass the same address rules and makes signature verification unknown until the next test.ping.',
      properties: {
        url: { type: 'string', format: 'uri', maxLength: 2000 },
        event_types: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string' } },
        description: { type: ['string', 'null'], maxLength: 200, description: 'null or "" clears it.' },
      },
    },
    responseBody: WEBHOOK_SCHEMA,
  },
  {
    ...route('webhooks.sample', 'POST', '/api/partner/webhooks/{webhook_id}/samples', 'Queue a signed sample of any catalog event type to the endpoint (one attempt, "sample": true in the body); follow it in the delivery log', 202),
    operation: sendSample,
    pathParameters: { webhook_id: PATH_PARAMETERS.webhook_id },
    requestBody: { type: 'object', required: ['event_type'], properties: { event_type: { type: 'string', description: 'A type of GET /api/partner/webhook-event-types.' } } },
    responseBody: DELIVERY_SCHEMA,
  },
  {
    ...route('webhooks.test', 'POST', '/api/partner/webhooks/{webhook_id}/test', 'Queue a signed test.ping to the endpoint (one attempt); follow it in the delivery log', 202),
    operation: sendTestPing,
    pathParameters: { webhook_id: PATH_PARAMETERS.webhook_id },
    responseBody: DELIVERY_SCHEMA,
  },
  {
    ...route('webhooks.deliveries', 'GET', '/api/partner/webhooks/{webhook_id}/deliveries', 'The delivery log of an endpoint, newest first (paged)', 200),
    operation: listDeliveries,
    pathParameters: { webhook_id: PATH_PARAMETERS.webhook_id },
    queryParameters: { ...PAGE_PARAMETERS, status: { schema: { type: 'string', enum: DELIVERY_STATUSES }, description: 'Only deliveries in this state.' } },
    responseBody: { type: 'object', required: ['deliveries', 'next_cursor'], properties: { deliveries: { type: 'array', items: DELIVERY_SCHEMA }, next_cursor: { type: ['string', 'null'] } } },
  },
  {
    ...route('webhooks.delivery', 'GET', '/api/partner/webhooks/{webhook_id}/deliveries/{delivery_id}', 'One delivery with its body and attempt log', 200),
    operation: getDelivery,
    pathParameters: PATH_PARAMETERS,
    responseBody: DELIVERY_DETAIL_SCHEMA,
  },
  {
    ...route('webhooks.redeliver', 'POST', '/api/partner/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', 'Send a finished delivery again (same delivery id, fresh retry schedule)', 202),
    operation: redeliver,
    pathParameters: PATH_PARAMETERS,
    responseBody: DELIVERY_SCHEMA,
  },
  {
    ...route('webhooks.rotate-secret', 'POST', '/api/partner/webhooks/{webhook_id}/rotate-secret', 'Replace the signing secret (shown once); both signatures are sent during the overlap', 200),
    operation: rotateSecret,
    pathParameters: { webhook_id: PATH_PARAMETERS.webhook_id },
    requestBody: { type: 'object', description: 'Optional.', properties: { overlap_seconds: { type: 'integer', minimum: 0, maximum: 2592000, description: 'How long deliveries also carry the old signature (default 24 h).' } } },
    responseBody: SECRET_SCHEMA,
  },
  {
    ...route('webhooks.enable', 'POST', '/api/partner/webhooks/{webhook_id}/enable', 'Enable an endpoint again after it was disabled (410 Gone, persistent failure, or by its partner)', 200),
    operation: enable,
    pathParameters: { webhook_id: PATH_PARAMETERS.webhook_id },
    responseBody: WEBHOOK_SCHEMA,
  },
  {
    ...route('webhooks.disable', 'POST', '/api/partner/webhooks/{webhook_id}/disable', 'Disable an endpoint: waiting deliveries are cancelled, nothing is sent until it is enabled again (a test ping still is)', 200),
    operation: disable,
    pathParameters: { webhook_id: PATH_PARAMETERS.webhook_id },
    responseBody: WEBHOOK_SCHEMA,
  },
  {
    id: 'webhooks.event-types',
    method: 'GET',
    path: '/api/partner/webhook-event-types',
    summary: 'Every event type a webhook can subscribe to, TEFCA exchange events included',
    auth: 'bearer',
    scopes: [],
    successStatus: 200,
    ...capabilityRoute('webhooks.event-types'),
    operation: eventTypes,
    responseBody: {
      type: 'object',
      required: ['event_types'],
      properties: {
        event_types: {
          type: 'array',
          items: { type: 'object', properties: { type: { type: 'string' }, category: { type: 'string' }, description: { type: 'string' }, status: { type: 'string', enum: ['emitted', 'planned'] } } },
        },
      },
    },
  },
];
