import { actsFor, DomainError, type SubgraphBuilder as Builder, type SubgraphServices } from '@svc/platform';
import type { Partner } from '../entities/partner.js';
import { rateLimitUsageOf, type RateLimitCounter, type RateLimitUsage } from '../domain/rate-limit-usage.js';

type PartnerRef = Parameters<Builder['objectFields']>[0] & { readonly $inferType: Partner };

/** Partner.rateLimitUsage: where a partner stands against its rate limits (GET /cms/partners/{gpid}/rate-limits). */
export function defineRateLimitUsage(builder: Builder, services: SubgraphServices, partnerRef: PartnerRef) {
  const Counter = builder.objectRef<RateLimitCounter>('RateLimitCounter').implement({
    description: 'One rate-limit counter of a partner in its current window.',
    fields: (t) => ({
      policy: t.exposeString('policy', { description: 'partner (a product\'s overall limit), burst (its per-second limit) or route (one capability\'s own limit).' }),
      name: t.exposeString('name', { description: 'The product (partner, burst) or the route id (route), as the route catalog names them.' }),
      product: t.exposeString('product'),
      limit: t.exposeInt('limit'),
      windowSeconds: t.exposeInt('windowSeconds'),
      used: t.exposeInt('used', { description: 'Points spent in the current window (refused attempts are not counted beyond the limit).' }),
      remaining: t.exposeInt('remaining'),
      resetsAt: t.expose('resetsAt', { type: 'DateTime', nullable: true, description: 'When the current window ends; null when nothing is spent.' }),
    }),
  });

  const Usage = builder.objectRef<RateLimitUsage>('RateLimitUsage').implement({
    description: 'A partner\'s standing against the limits all of its credentials share. Reading it spends nothing but its own route limit.',
    fields: (t) => ({
      enforced: t.exposeBoolean('enforced', {
        description: 'False when the operator runs without rate limits (nothing is counted), or runs the partner subgraph in a process of its own without Redis (the counters are out of its reach).',
      }),
      counters: t.field({
        type: [Counter],
        description: 'Each product\'s overall limit, then the burst and route limits with anything spent, fullest first.',
        resolve: (u) => u.counters,
      }),
    }),
  });

  builder.objectFields(partnerRef, (t) => ({
    rateLimitUsage: t.field({
      type: Usage,
      description: "Where this partner stands against its rate limits now (the counters every one of its credentials spends, REST and GraphQL alike). Your own partner, or any for operators.",
      authScopes: { anyScope: ['cms.partner.read', 'cms.pipeline.read', 'cms.tokens.manage', 'cms.admin'] },
      resolve: (partner, _args, ctx) => {
        if (!actsFor(ctx.principal, partner.gpid)) throw new DomainError('FORBIDDEN', 'Rate-limit usage of another partner is not visible.');
        return rateLimitUsageOf(services.runtime.rateLimits, partner.gpid, new Date());
      },
    }),
  }));
}
