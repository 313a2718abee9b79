import { actsFor, DomainError, loaderFor, type SubgraphBuilder as Builder } from '@svc/platform';
import type { Partner } from '../entities/partner.js';
import type { PortalAccount } from '../entities/portal-account.js';
import { portalAccounts } from '../entities/portal-accounts.js';
import { oauthClients } from '../entities/oauth-clients.js';
import type { OAuthClientRef } from './oauth-client.js';
import type { PortalAccountRef } from './portal-account.js';

type PartnerRef = Parameters<Builder['objectFields']>[0] & { readonly $inferType: Partner };

/** The credential side of a Partner: what it holds, its OAuth clients, its portal account. */
export function definePartnerCredentials(builder: Builder, partnerRef: PartnerRef, refs: { oauthClient: OAuthClientRef; portalAccount: PortalAccountRef }) {
  const ownOrOperator = (partner: Partner, principal: Parameters<typeof actsFor>[0], what: string) => {
    if (!actsFor(principal, partner.gpid)) throw new DomainError('FORBIDDEN', `${what} of another partner are not visible.`);
  };

  builder.objectFields(partnerRef, (t) => ({
    grantedScopes: t.stringList({
      description: 'The scopes this partner holds: the ceiling of every token, OAuth client and portal session it gets.',
      authScopes: { anyScope: ['cms.partner.read', 'cms.tokens.manage', 'cms.admin'] },
      resolve: (partner, _args, ctx) => {
        ownOrOperator(partner, ctx.principal, 'Grants');
        return partner.grantedScopes;
      },
    }),
    oauthClients: t.field({
      type: [refs.oauthClient],
      description: 'OAuth clients of this partner that are not revoked, newest first (never their secrets).',
      authScopes: { scope: 'cms.tokens.manage' },
      resolve: (partner, _args, ctx) => {
        ownOrOperator(partner, ctx.principal, 'OAuth clients');
        return oauthClients.active(ctx.em, partner.gpid);
      },
    }),
    portalAccount: t.field({
      type: refs.portalAccount,
      nullable: true,
      description: "The partner's portal sign-in, if it has one.",
      authScopes: { anyScope: ['cms.partner.read', 'cms.tokens.manage', 'cms.admin'] },
      resolve: (partner, _args, ctx) => {
        ownOrOperator(partner, ctx.principal, 'Portal accounts');
        return loaderFor<string, PortalAccount | null>(ctx, 'portalAccount', (gpids) => portalAccounts.byPartners(ctx.em, gpids)).load(partner.gpid);
      },
    }),
  }));
}
