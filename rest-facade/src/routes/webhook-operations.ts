import { isId, isPartnerGpid, validationError } from '@svc/platform';
import type { GatewayOperation, JsonSchema, RouteInput } from './route.js';
import { BodyReader, singleQueryValue } from './body-readers.js';
import { snakeKeys } from './snake-case.js';

/**
 * POST, GET and DELETE /api/partner/webhooks: the partner's webhook endpoints, as the pipeline
 * subgraph's createWebhook / webhooks / removeWebhook. The spec's DELETE has no id in its path, so
 * the endpoint is named by `?webhook_id=whk_…` (or a JSON body `{ "webhook_id": … }`), the way
 * DELETE /cms/tokens names a token.
 */
export const WEBHOOK_FIELDS = 'webhookId partnerGpid url description eventTypes enabled disabledReason disabledAt lastSuccessAt previousSecretExpiresAt signatureVerifiedAt recentDeliveryStats { attempts succeeded failed successRate } createdAt';

const TIMESTAMP: JsonSchema = { type: 'string', format: 'date-time' };
const NULLABLE_TIMESTAMP: JsonSchema = { ...TIMESTAMP, type: ['string', 'null'] };
const PARTNER_GPID: JsonSchema = { type: 'string', pattern: '^CMS-[0-9]{8}$', description: 'CMS GPID.' };
export const WEBHOOK_ID: JsonSchema = { type: 'string', pattern: '^whk_[0-9a-z]{26}$' };

export const WEBHOOK_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['webhook_id', 'partner_gpid', 'url', 'event_types', 'enabled', 'created_at'],
  properties: {
    webhook_id: WEBHOOK_ID,
    partner_gpid: PARTNER_GPID,
    url: { type: 'string', format: 'uri' },
    description: { type: ['string', 'null'] },
    event_types: { type: 'array', items: { type: 'string' }, description: 'Event types, prefix wildcards (tefca.*) or *.' },
    enabled: { type: 'boolean' },
    disabled_reason: { type: ['string', 'null'], enum: ['gone', 'persistent_failure', 'partner', null], description: 'gone: the receiver answered 410; persistent_failure: it kept failing; partner: its partner disabled it.' },
    disabled_at: NULLABLE_TIMESTAMP,
    last_success_at: NULLABLE_TIMESTAMP,
    previous_secret_expires_at: { ...NULLABLE_TIMESTAMP, description: 'End of the rotation overlap, during which deliveries carry two signatures.' },
    signature_verified_at: {
      ...NULLABLE_TIMESTAMP,
      description: 'When the latest test.ping showed the receiver verifies signatures (2xx to the signed ping, 4xx to the same body under a wrong key); null until then and after the URL changes.',
    },
    recent_delivery_stats: {
      type: 'object',
      description: 'Delivery attempts of the last 24 hours.',
      required: ['attempts', 'succeeded', 'failed', 'success_rate'],
      properties: {
        attempts: { type: 'integer' },
        succeeded: { type: 'integer', description: 'Answered 2xx.' },
        failed: { type: 'integer' },
        success_rate: { type: ['number', 'null'], minimum: 0, maximum: 1, description: 'succeeded / attempts; null without attempts.' },
      },
    },
    created_at: TIMESTAMP,
  },
};

export const registerWebhook: GatewayOperation = {
  document: `mutation CreateWebhook($input: CreateWebhookInput!) { createWebhook(input: $input) { secret webhook { ${WEBHOOK_FIELDS} } } }`,
  variables: ({ body }) => {
    const reader = new BodyReader(body);
    const url = reader.string('url', true);
    const eventTypes = reader.stringArray('event_types', true);
    const description = reader.string('description') ?? null;
    const partnerGpid = reader.string('partner_gpid');
    if (partnerGpid !== undefined && !isPartnerGpid(partnerGpid)) reader.fail('partner_gpid', 'must be a CMS GPID (CMS- and 8 digits)');
    reader.done();
    return { input: { url, eventTypes, description, ...(partnerGpid ? { partnerGpid } : {}) } };
  },
  result: (data) => {
    const created = data['createWebhook'] as { secret: string; webhook: Record<string, unknown> };
    return { ...(snakeKeys(created.webhook) as Record<string, unknown>), secret: created.secret };
  },
};

export const registerWebhookSchemas = {
  requestBody: {
    type: 'object',
    required: ['url', 'event_types'],
    description: 'The receiver must be a public https address (http is accepted outside production). At most 20 webhooks per partner (409).',
    properties: {
      url: { type: 'string', format: 'uri', maxLength: 2000 },
      event_types: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string' }, description: 'e.g. ["pipeline.sync.completed", "tefca.*"]; the list is GraphQL webhookEventTypes.' },
      description: { type: 'string', maxLength: 200 },
      partner_gpid: { ...PARTNER_GPID, description: "Operators only: the partner the webhook belongs to (default: the caller's)." },
    },
  },
  responseBody: {
    ...WEBHOOK_SCHEMA,
    required: [...(WEBHOOK_SCHEMA['required'] as string[]), 'secret'],
    properties: {
      ...(WEBHOOK_SCHEMA['properties'] as Record<string, JsonSchema>),
      secret: { type: 'string', description: 'whsec_…: shown in this answer only. Verify webhook-signature with any Standard Webhooks library.' },
    },
  },
} satisfies Record<string, JsonSchema>;

export const listWebhooks: GatewayOperation = {
  document: `query ListWebhooks($partnerGpid: ID) { webhooks(partnerGpid: $partnerGpid) { ${WEBHOOK_FIELDS} } }`,
  variables: ({ query }) => {
    const partnerGpid = singleQueryValue(query, 'partner_gpid');
    if (partnerGpid !== undefined && !isPartnerGpid(partnerGpid)) throw validationError([{ field: 'partner_gpid', message: 'must be a CMS GPID (CMS- and 8 digits)' }]);
    return { partnerGpid: partnerGpid ?? null };
  },
  result: (data) => ({ webhooks: snakeKeys(data['webhooks']) }),
};

export const listWebhooksSchemas = {
  queryParameters: { partner_gpid: { schema: PARTNER_GPID, description: "Operators: only this partner's webhooks (default: every partner's). A partner sees only its own." } },
  responseBody: { type: 'object', required: ['webhooks'], properties: { webhooks: { type: 'array', items: WEBHOOK_SCHEMA } } },
};

/** The webhook a DELETE names: `?webhook_id=` or a JSON body `{ webhook_id }` (either, not conflicting). */
function removalTarget({ query, body }: RouteInput): { webhookId: string } {
  const fromQuery = singleQueryValue(query, 'webhook_id');
  const reader = new BodyReader(body, { allowEmpty: true });
  const fromBody = reader.string('webhook_id');
  reader.done();
  if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) throw validationError([{ field: 'webhook_id', message: 'the query and the body name different webhooks' }]);
  const id = fromQuery ?? fromBody;
  if (id === undefined) throw validationError([{ field: 'webhook_id', message: 'is required: ?webhook_id=whk_…, or a JSON body { "webhook_id": … }' }]);
  if (!isId('whk', id)) throw validationError([{ field: 'webhook_id', message: 'must be a webhook id (whk_…)' }]);
  return { webhookId: id };
}

export const removeWebhook: GatewayOperation = {
  document: `mutation RemoveWebhook($webhookId: ID!) { removeWebhook(webhookId: $webhookId) { ${WEBHOOK_FIELDS} } }`,
  variables: (input) => removalTarget(input),
  result: (data) => ({ ...(snakeKeys(data['removeWebhook']) as Record<string, unknown>), removed: true }),
};

export const removeWebhookSchemas = {
  queryParameters: { webhook_id: { schema: WEBHOOK_ID, description: 'The webhook to remove (or send it as webhook_id in a JSON body). Waiting deliveries are cancelled.' } },
  requestBody: { type: 'object', description: 'Optional: the same field as the query parameter.', properties: { webhook_id: WEBHOOK_ID } },
  responseBody: { ...WEBHOOK_SCHEMA, required: [...(WEBHOOK_SCHEMA['required'] as string[]), 'removed'], properties: { ...(WEBHOOK_SCHEMA['properties'] as Record<string, JsonSchema>), removed: { const: true } } },
};
