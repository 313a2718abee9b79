import type { SubgraphContext } from '@svc/platform';
import { apiTokens } from '../entities/api-tokens.js';
import type { ApiToken } from '../entities/api-token.js';
import type { SubgraphBuilder as Builder } from '@svc/platform';

/** The ApiToken type, the caller's token list, and the gateway's credential lookup. */
export function defineApiToken(builder: Builder) {
  const ref = builder.objectRef<ApiToken>('ApiToken').implement({
    description: 'A scoped API token. Its secret is shown once, at creation, and never again.',
    fields: (t) => ({
      tokenId: t.exposeID('id', { description: 'tok_…' }),
      partnerGpid: t.exposeID('partnerGpid'),
      name: t.exposeString('name'),
      scopes: t.exposeStringList('scopes'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
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

  const Credential = builder.objectRef<ApiToken>('Credential').implement({
    description: 'What the gateway needs to authenticate a presented secret. Internal.',
    fields: (t) => ({
      tokenId: t.exposeID('id'),
      partnerGpid: t.exposeID('partnerGpid'),
      principalKind: t.exposeString('principalKind'),
      scopes: t.exposeStringList('scopes'),
      expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
      revoked: t.boolean({ resolve: (c) => c.revokedAt !== null }),
    }),
  });

  builder.queryFields((t) => ({
    credential: t.field({
      type: Credential,
      nullable: true,
      inaccessible: true,
      description: 'Look a credential up by the SHA-256 of its secret (gateway only; hidden from the supergraph).',
      args: { secretHash: t.arg.string({ required: true }) },
      authScopes: { internal: true },
      resolve: (_root, { secretHash }, ctx) => apiTokens.bySecretHash(ctx.em, secretHash),
    }),
  }));

  return { ref, activeFor };
}

export type ApiTokenType = ReturnType<typeof defineApiToken>;
