import type { EntityManager } from '@mikro-orm/core';
import { ApiTokenEntity, type ApiToken } from './api-token.js';

function activeWhere(partnerGpid: string, now: Date) {
  return { partnerGpid, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] };
}

/** API token queries. */
export const apiTokens = {
  bySecretHash(em: EntityManager, secretHash: string): Promise<ApiToken | null> {
    return em.findOne(ApiTokenEntity, { secretHash });
  },

  byId(em: EntityManager, id: string): Promise<ApiToken | null> {
    return em.findOne(ApiTokenEntity, { id });
  },

  /** Tokens a partner can still use: not revoked, not expired; newest first. */
  active(em: EntityManager, partnerGpid: string, now = new Date()): Promise<ApiToken[]> {
    return em.find(ApiTokenEntity, activeWhere(partnerGpid, now), { orderBy: { id: 'desc' } });
  },

  countActive(em: EntityManager, partnerGpid: string, now = new Date()): Promise<number> {
    return em.count(ApiTokenEntity, activeWhere(partnerGpid, now));
  },
};
