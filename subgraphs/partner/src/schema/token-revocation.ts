import type { SubgraphBuilder as Builder } from '@svc/platform';
import type { Revocation } from '../domain/credential-revocation.js';

/** TokenRevocation: what revoking an API token or an OAuth client answers (and partner.token.revoked carries). */
export function defineTokenRevocation(builder: Builder) {
  return builder.objectRef<Revocation>('TokenRevocation').implement({
    description: 'A revoked API token or OAuth client; the same facts partner.token.revoked delivers.',
    fields: (t) => ({
      tokenId: t.exposeID('tokenId', { description: 'The tok_… or cli_… id of the revoked credential.' }),
      partnerGpid: t.exposeID('partnerGpid'),
      revokedAt: t.expose('revokedAt', { type: 'DateTime' }),
      reason: t.exposeString('reason', { description: 'partner_request, compromised or admin_action.' }),
    }),
  });
}

export type TokenRevocationRef = ReturnType<typeof defineTokenRevocation>;
