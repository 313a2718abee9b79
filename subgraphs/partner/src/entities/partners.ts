import { LockMode, type EntityManager } from '@mikro-orm/core';
import { DomainError, newPartnerGpid } from '@svc/platform';
import { PartnerEntity, type Partner } from './partner.js';
import { OPERATOR_PARTNER_GPID } from '../domain/operator-partner.js';
import { defaultGrantFor } from '../domain/partner-scopes.js';

export { OPERATOR_PARTNER_GPID };

/** Partner queries: resolvers call these, never the ORM directly. */
export const partners = {
  byGpid(em: EntityManager, gpid: string): Promise<Partner | null> {
    return em.findOne(PartnerEntity, { gpid });
  },

  /** Whether the partner exists, without loading it into the caller's unit of work (nothing to flush). */
  async exists(em: EntityManager, gpid: string): Promise<boolean> {
    return (await em.count(PartnerEntity, { gpid })) > 0;
  },

  /**
   * The partner, locked for the rest of the caller's transaction (PostgreSQL; SQLite serializes
   * writers anyway), so per-partner limits counted inside it cannot be raced past.
   */
  byGpidForUpdate(em: EntityManager, gpid: string): Promise<Partner | null> {
    return em.findOne(PartnerEntity, { gpid }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  },

  /** Replace a partner's grant (staged in `em`; the caller flushes inside its transaction). */
  setGrantedScopes(partner: Partner, scopes: readonly string[]): void {
    partner.grantedScopes = [...scopes];
  },

  /** Load many partners in one statement (DataLoader batch). */
  async byGpids(em: EntityManager, gpids: readonly string[]): Promise<(Partner | null)[]> {
    const rows = await em.find(PartnerEntity, { gpid: { $in: [...gpids] } });
    const byGpid = new Map(rows.map((p) => [p.gpid, p]));
    return gpids.map((g) => byGpid.get(g) ?? null);
  },

  /** One page in GPID order, starting after `afterGpid`; fetches one extra row to tell if there is more. */
  page(em: EntityManager, size: number, afterGpid: string | null): Promise<Partner[]> {
    return em.find(PartnerEntity, afterGpid ? { gpid: { $gt: afterGpid } } : {}, { orderBy: { gpid: 'asc' }, limit: size + 1 });
  },

  /** Create a partner under a fresh CMS GPID, retrying the rare collision of the 8-digit space. */
  async create(em: EntityManager, input: { legalName: string; organizationType: string }, gpid?: string): Promise<Partner> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const candidate = gpid ?? newPartnerGpid();
      if (candidate === OPERATOR_PARTNER_GPID && gpid === undefined) continue;
      if (await em.findOne(PartnerEntity, { gpid: candidate })) {
        if (gpid !== undefined) throw new DomainError('CONFLICT', `Partner ${gpid} already exists.`);
        continue;
      }
      return em.create(PartnerEntity, { gpid: candidate, ...input, status: 'active', createdAt: new Date(), grantedScopes: defaultGrantFor(candidate) });
    }
    throw new DomainError('CONFLICT', 'Could not allocate a unique partner GPID; try again.');
  },
};
