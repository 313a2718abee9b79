import { DomainError, hasScope, type Principal } from '@svc/platform';
import { OPERATOR_PARTNER_GPID } from '../domain/operator-partner.js';

/** A partner acting for itself: the partner and the credential it acts with. */
export interface PartnerActor {
  partnerGpid: string;
  principalKind: string;
  credentialId: string | null;
}

/**
 * The partner behind a request that signs or certifies on the partner's behalf (BAA e-signature,
 * certification progress and submission): a portal session, or a partner credential carrying
 * `cms.partner.write`. Platform credentials are refused: an operator never signs for a partner.
 * @throws DomainError `UNAUTHENTICATED`, `FORBIDDEN` or `INSUFFICIENT_SCOPE`.
 */
export function partnerActor(principal: Principal): PartnerActor {
  if (principal.kind === 'anonymous') throw new DomainError('UNAUTHENTICATED', 'Sign in to the portal or use a partner credential.');
  if (principal.kind === 'service' || principal.partnerGpid === null || principal.partnerGpid === OPERATOR_PARTNER_GPID) {
    throw new DomainError('FORBIDDEN', 'Only a partner can do this for itself; platform credentials cannot act on a partner\'s behalf here.');
  }
  if (principal.kind !== 'portal' && !hasScope(principal.scopes, 'cms.partner.write')) {
    throw new DomainError('INSUFFICIENT_SCOPE', 'The credential needs the cms.partner.write scope (or sign in to the portal).', {
      details: { required_scopes: ['cms.partner.write'] },
    });
  }
  return { partnerGpid: principal.partnerGpid, principalKind: principal.kind, credentialId: principal.tokenId ?? principal.clientId ?? null };
}
