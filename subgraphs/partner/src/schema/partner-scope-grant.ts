import type { SubgraphServices, SubgraphBuilder as Builder } from '@svc/platform';
import type { definePartner } from './partner.js';
import { updatePartnerScopeGrant, type RevokedCredential, type ScopeGrantChange } from '../domain/partner-scope-grant.js';
import { publishRevocations } from './publish.js';

type PartnerRef = ReturnType<typeof definePartner>;

/** The operators' `updatePartnerScopeGrant` (the grant itself is read as `Partner.grantedScopes`). */
export function definePartnerScopeGrant(builder: Builder, services: SubgraphServices, partnerType: PartnerRef) {
  const Revoked = builder.objectRef<RevokedCredential>('GrantRevokedCredential').implement({
    description: 'A credential revoked because it carried a scope the narrowed grant no longer holds.',
    fields: (t) => ({
      credentialId: t.exposeID('credentialId', { description: 'tok_… (API token), cli_… (OAuth client) or ses_… (portal session).' }),
      kind: t.exposeString('kind', { description: 'api_token, oauth_client or portal_session.' }),
      exceedingScopes: t.exposeStringList('exceedingScopes', { description: 'What it carried that the new grant does not cover.' }),
    }),
  });

  const Change = builder.objectRef<ScopeGrantChange>('PartnerScopeGrantChange').implement({
    description: "The outcome of changing a partner's grant; partner.scopes.updated carries the same facts.",
    fields: (t) => ({
      partner: t.field({ type: partnerType, resolve: (c) => c.partner }),
      grantedScopes: t.exposeStringList('grantedScopes', { description: 'The grant now in force.' }),
      previousScopes: t.exposeStringList('previousScopes'),
      addedScopes: t.exposeStringList('addedScopes'),
      removedScopes: t.exposeStringList('removedScopes'),
      revokedCredentials: t.field({ type: [Revoked], description: 'Active credentials revoked because they exceeded the new grant.', resolve: (c) => c.revokedCredentials }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: true, description: 'Null when the grant was already this set (nothing changed, no event).' }),
    }),
  });

  builder.mutationFields((t) => ({
    updatePartnerScopeGrant: t.field({
      type: Change,
      description:
        "Replace a partner's granted scopes (operators only). Every scope must be in the scope catalog or narrower than a catalog entry; `*` and cms.admin cannot be granted. Active credentials carrying a scope the new grant does not cover are revoked at once (partner.token.revoked / partner.session.revoked, reason admin_action). Emits partner.scopes.updated.",
      args: {
        partnerGpid: t.arg.id({ required: true }),
        scopes: t.arg.stringList({ required: true, description: 'The whole new grant: 1 to 50 scopes.' }),
      },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, { partnerGpid, scopes }, ctx) => {
        const change = await ctx.em.transactional((tx) => updatePartnerScopeGrant(tx, ctx.principal, String(partnerGpid), scopes, new Date()));
        await publishRevocations(services, ctx, change.eventIds);
        return change;
      },
    }),
  }));
}
