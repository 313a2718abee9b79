import type { EntityManager } from '@mikro-orm/core';
import { PortalAccountEntity, type PortalAccount } from './portal-account.js';

/** Portal account queries. */
export const portalAccounts = {
  /** By canonical e-mail address (see domain/email-address.ts `normalizeEmail`). */
  byEmail(em: EntityManager, email: string): Promise<PortalAccount | null> {
    return em.findOne(PortalAccountEntity, { email });
  },

  byPartner(em: EntityManager, partnerGpid: string): Promise<PortalAccount | null> {
    return em.findOne(PortalAccountEntity, { partnerGpid });
  },

  /** Many partners' accounts in one statement (DataLoader batch). */
  async byPartners(em: EntityManager, partnerGpids: readonly string[]): Promise<(PortalAccount | null)[]> {
    const rows = await em.find(PortalAccountEntity, { partnerGpid: { $in: [...partnerGpids] } });
    const byGpid = new Map(rows.map((a) => [a.partnerGpid, a]));
    return partnerGpids.map((g) => byGpid.get(g) ?? null);
  },
};
