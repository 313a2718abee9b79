import type { EntityManager } from '@mikro-orm/core';
import { actsFor, DomainError, isPartnerGpid, validationError, type Principal } from '@svc/platform';
import { partners } from '../entities/partners.js';
import type { Partner } from '../entities/partner.js';

/**
 * The partner a new credential is for: the caller's own, or (operators only) the one named.
 * Refuses a suspended partner: it may keep nothing new. Locks the partner row for the caller's
 * transaction, which must be open, so per-partner credential limits hold under concurrency.
 */
export async function credentialOwner(em: EntityManager, caller: Principal, requested: string | null | undefined): Promise<Partner> {
  const gpid = requested ?? caller.partnerGpid;
  if (!gpid) throw new DomainError('FORBIDDEN', 'This credential does not belong to a partner.');
  if (!isPartnerGpid(gpid)) throw validationError([{ field: 'partner_gpid', message: 'must be CMS- followed by 8 digits' }]);
  if (!actsFor(caller, gpid)) throw new DomainError('FORBIDDEN', 'Credentials of another partner are not yours to manage.');
  const partner = await partners.byGpidForUpdate(em, gpid);
  if (!partner) throw new DomainError('NOT_FOUND', `No partner has GPID ${gpid}.`);
  if (partner.status !== 'active') throw new DomainError('CONFLICT', `Partner ${gpid} is ${partner.status}; it cannot receive new credentials.`);
  return partner;
}

/** The credential id the caller acts with, recorded as the creator of what it creates. */
export function creatorOf(caller: Principal): string | null {
  return caller.tokenId ?? caller.clientId ?? null;
}
