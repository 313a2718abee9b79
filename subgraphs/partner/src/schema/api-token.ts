import type { SubgraphContext, SubgraphServices, SubgraphBuilder as Builder } from '@svc/platform';
import { apiTokens } from '../entities/api-tokens.js';
import type { ApiToken } from '../entities/api-token.js';
import { createApiToken, revokeApiToken } from '../domain/api-token-issuance.js';
import { API_TOKEN_POLICY } from '../domain/api-token-input.js';
import { publishRevocation } from './publish.js';
import type { TokenRevocationRef } from './token-revocation.js';

/** The ApiToken type, the caller's token list, and creating and revoking tokens. */
export function defineApiToken(builder: Builder, services: SubgraphServices, revocationRef: TokenRevocationRef) {
  const ref = builder.objectRef<ApiToken>('ApiToken').implement({
    description: 'A scoped API token. Its secret is shown once, at creation, and never again.',
    fields: (t) => ({
      tokenId: t.exposeID('id', { description: 'tok_…' }),
      partnerGpid: t.exposeID('partnerGpid'),
      name: t.exposeString('name'),
      scopes: t.exposeStringList('scopes'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
      lastUsedAt: t.field({
        type: 'DateTime',
        nullable: true,
        description: 'When the token last authenticated a request (null: never). Recorded at most about once a minute per token, so it may lag by up to a minute.',
        resolve: (tok) => tok.lastUsedAt ?? null,
      }),
      lastUsedRoute: t.string({ nullable: true, description: 'The method and route template of that request, e.g. "GET /cms/tokens".', resolve: (tok) => tok.lastUsedRoute ?? null }),
      environment: t.string({
        description: 'sandbox or production: the environment of the service that issued the token (SVC_ENVIRONMENT); it authenticates only there.',
        resolve: () => services.runtime.config.environment,
      }),
    }),
  });

  const activeFor = (ctx: SubgraphContext, partnerGpid: string) => apiTokens.active(ctx.em, partnerGpid);

  builder.queryFields((t) => ({
    apiTokens: t.field({
      type: [ref],
      description: "The caller's partner's active API tokens, newest first.",
      authScopes: { scope: 'cms.tokens.manage' },
      resolve: (_root, _args, ctx) => (ctx.principal.partnerGpid ? activeFor(ctx, ctx.principal.partnerGpid) : []),
    }),
  }));

  const Creation = builder.objectRef<{ token: ApiToken; secret: string }>('ApiTokenCreation').implement({
    description: 'A new API token with its secret. The secret is shown here once and cannot be retrieved again.',
    fields: (t) => ({
      token: t.field({ type: ref, resolve: (c) => c.token }),
      secret: t.exposeString('secret', { description: 'svc_pat_…: send it as "Authorization: Bearer <secret>".' }),
    }),
  });

  const CreateApiTokenInput = builder.inputType('CreateApiTokenInput', {
    fields: (t) => ({
      partnerGpid: t.id({ description: "Operators only: the partner to create the token for (default: the caller's)." }),
      name: t.string({ required: true, description: `1 to ${API_TOKEN_POLICY.nameMaxLength} characters.` }),
      scopes: t.stringList({ required: true, description: "Within the partner's granted scopes and, for a token-made token, within the caller's own." }),
      expiresAt: t.field({ type: 'DateTime', description: `At most ${API_TOKEN_POLICY.maxLifetimeDays} days ahead.` }),
      expiresInDays: t.int({ description: `1 to ${API_TOKEN_POLICY.maxLifetimeDays}; default ${API_TOKEN_POLICY.defaultLifetimeDays}. Not with expiresAt.` }),
    }),
  });

  builder.mutationFields((t) => ({
    createApiToken: t.field({
      type: Creation,
      description: `Create a scoped API token (at most ${API_TOKEN_POLICY.maxActivePerPartner} active per partner).`,
      args: { input: t.arg({ type: CreateApiTokenInput, required: true }) },
      authScopes: { scope: 'cms.tokens.manage' },
      resolve: (_root, { input }, ctx) =>
        ctx.em.transactional((tx) =>
          createApiToken(tx, ctx.principal, { partnerGpid: input.partnerGpid === null || input.partnerGpid === undefined ? null : String(input.partnerGpid), name: input.name, scopes: input.scopes, expiresAt: input.expiresAt ?? null, expiresInDays: input.expiresInDays ?? null }, new Date()),
        ),
    }),
    revokeApiToken: t.field({
      type: revocationRef,
      description: 'Revoke an API token at once, everywhere; emits partner.token.revoked. Revoking it again answers the first revocation.',
      args: {
        tokenId: t.arg.id({ required: true, description: 'tok_…' }),
        reason: t.arg.string({ description: 'partner_request (default), compromised, or admin_action (operators).' }),
      },
      authScopes: { scope: 'cms.tokens.manage' },
      resolve: async (_root, { tokenId, reason }, ctx) => {
        const outcome = await ctx.em.transactional((tx) => revokeApiToken(tx, ctx.principal, String(tokenId), reason, new Date()));
        await publishRevocation(services, ctx, outcome.eventId);
        return outcome.revocation;
      },
    }),
  }));

  return { ref, activeFor };
}

export type ApiTokenType = ReturnType<typeof defineApiToken>;
