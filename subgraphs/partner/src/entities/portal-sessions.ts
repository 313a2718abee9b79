import type { EntityManager } from '@mikro-orm/core';
import { PortalSessionEntity, type PortalSession } from './portal-session.js';

/** Portal session queries. */
export const portalSessions = {
  bySecretHash(em: EntityManager, secretHash: string): Promise<PortalSession | null> {
    return em.findOne(PortalSessionEntity, { secretHash });
  },

  byId(em: EntityManager, id: string): Promise<PortalSession | null> {
    return em.findOne(PortalSessionEntity, { id });
  },

  /** Sessions of a partner that are neither ended nor expired; newest first. */
  active(em: EntityManager, partnerGpid: string, now = new Date()): Promise<PortalSession[]> {
    return em.find(PortalSessionEntity, { partnerGpid, revokedAt: null, expiresAt: { $gt: now } }, { orderBy: { id: 'desc' } });
  },
};
