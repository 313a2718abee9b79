import type { EntityManager } from '@mikro-orm/core';
import { OAuthClientEntity, type OAuthClient } from './oauth-client.js';

/** OAuth client queries. */
export const oauthClients = {
  byId(em: EntityManager, id: string): Promise<OAuthClient | null> {
    return em.findOne(OAuthClientEntity, { id });
  },

  /** A partner's clients that are not revoked; newest first. */
  active(em: EntityManager, partnerGpid: string): Promise<OAuthClient[]> {
    return em.find(OAuthClientEntity, { partnerGpid, revokedAt: null }, { orderBy: { id: 'desc' } });
  },

  countActive(em: EntityManager, partnerGpid: string): Promise<number> {
    return em.count(OAuthClientEntity, { partnerGpid, revokedAt: null });
  },
};
