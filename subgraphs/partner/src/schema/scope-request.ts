import { connectionType, decodeOptionalCursor, isId, pageSize, toPage, validationError, type SubgraphBuilder as Builder, type SubgraphServices } from '@svc/platform';
import type { ScopeRequest, ScopeRequestStatus } from '../entities/scope-request.js';
import { decideScopeRequest, listScopeRequests, requestScopes, scopeRequestFor } from '../domain/scope-requests.js';
import { publishRevocations } from './publish.js';

const STATUSES: ScopeRequestStatus[] = ['pending', 'granted', 'refused'];

/** Partners request scopes with a reason; operators grant or refuse them (`requestScopes`, `grantScopeRequest`, `refuseScopeRequest`). */
export function defineScopeRequests(builder: Builder, services: SubgraphServices) {
  const Status = builder.enumType('ScopeRequestStatus', {
    description: 'PENDING until an operator decides: GRANTED (the scopes joined the grant) or REFUSED (with a reason).',
    values: Object.fromEntries(STATUSES.map((s) => [s.toUpperCase(), { value: s }])) as Record<string, { value: ScopeRequestStatus }>,
  });

  const Request = builder.objectRef<ScopeRequest>('ScopeRequest').implement({
    description: "A partner's request for scopes it does not hold, with its reason and the operator's decision.",
    fields: (t) => ({
      id: t.exposeID('id', { description: 'scr_…' }),
      partnerGpid: t.exposeID('partnerGpid'),
      scopes: t.exposeStringList('scopes', { description: 'The scopes asked for: catalog entries or narrower.' }),
      reason: t.exposeString('reason', { description: 'Why the partner needs them.' }),
      status: t.field({ type: Status, resolve: (r) => r.status }),
      requestedBy: t.exposeString('requestedBy', { nullable: true, description: 'The credential that asked (ses_…, tok_… or cli_…).' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      decidedBy: t.exposeString('decidedBy', { nullable: true, description: 'The operator credential that decided.' }),
      decisionReason: t.exposeString('decisionReason', { nullable: true, description: 'Why it was refused (required), or a note on the grant.' }),
      decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true }),
    }),
  });
  const Connection = connectionType(builder, 'ScopeRequest', Request);

  builder.queryFields((t) => ({
    scopeRequests: t.field({
      type: Connection,
      description: "Scope requests, newest first: a partner's own; operators every partner's (or `partnerGpid`'s). Another partner's GPID answers an empty page.",
      args: { status: t.arg({ type: Status }), partnerGpid: t.arg.id(), first: t.arg.int(), after: t.arg.string() },
      authScopes: { anyScope: ['cms.partner.read', 'cms.admin'] },
      resolve: async (_root, args, ctx) => {
        const size = pageSize(args.first);
        const beforeId = decodeOptionalCursor(args.after, { isKey: (key) => isId('scr', key) });
        const rows = await listScopeRequests(ctx.em, ctx.principal, { partnerGpid: args.partnerGpid ? String(args.partnerGpid) : null, status: args.status ?? null, size, beforeId });
        return toPage(rows, size, (r) => r.id);
      },
    }),
    scopeRequest: t.field({
      type: Request,
      nullable: true,
      description: "One scope request; null when there is none the caller may see (another partner's looks missing).",
      args: { id: t.arg.id({ required: true }) },
      authScopes: { anyScope: ['cms.partner.read', 'cms.admin'] },
      resolve: (_root, { id }, ctx) => scopeRequestFor(ctx.em, ctx.principal, String(id)),
    }),
  }));

  builder.mutationFields((t) => ({
    requestScopes: t.field({
      type: Request,
      description:
        'Ask an operator for scopes the partner does not hold, saying why (10 to 1000 characters). Each scope must be in the scope catalog or narrower than an entry, not held already, and not in another pending request (409 naming it). Field errors name `scopes.<i>` and `reason`.',
      args: {
        scopes: t.arg.stringList({ required: true, description: '1 to 50 scopes.' }),
        reason: t.arg.string({ required: true }),
      },
      authScopes: { scope: 'cms.partner.write' },
      resolve: (_root, { scopes, reason }, ctx) => ctx.em.transactional((tx) => requestScopes(tx, ctx.principal, scopes, reason, new Date())),
    }),
    grantScopeRequest: t.field({
      type: Request,
      description:
        "Grant a pending request (operators): its scopes join the partner's grant (partner.scopes.updated), and the partner's open portal sessions carry them from their next request on. A decided request answers 409.",
      args: { id: t.arg.id({ required: true }), reason: t.arg.string({ description: 'An optional note to the partner.' }) },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, { id, reason }, ctx) => {
        const decision = await ctx.em.transactional((tx) => decideScopeRequest(tx, ctx.principal, String(id), 'grant', reason, new Date()));
        await publishRevocations(services, ctx, decision.eventIds);
        return decision.request;
      },
    }),
    refuseScopeRequest: t.field({
      type: Request,
      description: 'Refuse a pending request (operators), with a reason the partner sees (10 to 1000 characters). A decided request answers 409.',
      args: { id: t.arg.id({ required: true }), reason: t.arg.string({ required: true }) },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, { id, reason }, ctx) => {
        if (typeof reason !== 'string') throw validationError([{ field: 'reason', message: 'is required' }]);
        const decision = await ctx.em.transactional((tx) => decideScopeRequest(tx, ctx.principal, String(id), 'refuse', reason, new Date()));
        return decision.request;
      },
    }),
  }));
}
