import { DomainError } from '@svc/platform';
import type { GatewayOperation, JsonSchema } from './route.js';
import { snakeKeys } from './snake-case.js';

/**
 * `GET /cms/partners/{gpid}/rate-limits`: where a partner stands against its rate limits, read
 * through Partner.rateLimitUsage (the same capability and counter as on GraphQL).
 */
export const rateLimitUsage: GatewayOperation = {
  document: 'query RateLimitUsage($gpid: ID!) { partner(gpid: $gpid) { gpid rateLimitUsage { enforced counters { policy name product limit windowSeconds used remaining resetsAt } } } }',
  variables: ({ params }) => ({ gpid: params['gpid'] ?? '' }),
  result: (data) => {
    const partner = data['partner'] as { gpid: string; rateLimitUsage: Record<string, unknown> } | null;
    // Another partner's GPID answers exactly like one nobody has.
    if (!partner) throw new DomainError('NOT_FOUND', 'No partner with this GPID is visible to this credential.');
    return { partner_gpid: partner.gpid, ...(snakeKeys(partner.rateLimitUsage) as Record<string, unknown>) };
  },
};

export const rateLimitUsageSchemas = {
  pathParameters: { gpid: { schema: { type: 'string', pattern: '^CMS-[0-9]{8}$' }, description: 'Your own GPID, or any partner\'s for operators.' } },
  responseBody: {
    type: 'object',
    description:
      "The counters every credential of the partner spends, REST and GraphQL alike: each product's overall limit, then the burst and route limits with anything spent in their current window, fullest first. Counters live in memory in the embedded default and in Redis in the distributed mode (503 while Redis is away).",
    required: ['partner_gpid', 'enforced', 'counters'],
    properties: {
      partner_gpid: { type: 'string', pattern: '^CMS-[0-9]{8}$' },
      enforced: { type: 'boolean', description: 'False when the operator runs without rate limits; then nothing is counted.' },
      counters: {
        type: 'array',
        items: {
          type: 'object',
          required: ['policy', 'name', 'product', 'limit', 'window_seconds', 'used', 'remaining', 'resets_at'],
          properties: {
            policy: { type: 'string', enum: ['partner', 'burst', 'route'] },
            name: { type: 'string', description: 'The product (partner, burst) or the route id (route).' },
            product: { type: 'string' },
            limit: { type: 'integer' },
            window_seconds: { type: 'integer' },
            used: { type: 'integer' },
            remaining: { type: 'integer' },
            resets_at: { type: ['string', 'null'], format: 'date-time' },
          },
        },
      },
    },
  },
} satisfies Record<string, JsonSchema>;
