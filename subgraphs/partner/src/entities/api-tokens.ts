import type { EntityManager } from '@mikro-orm/core';
import { ApiTokenEntity, type ApiToken } from './api-token.js';

/** API token queries. */
export const apiTokens = {
  bySecretHash(em: EntityManager, secretHash: string): Promise<ApiToken | null> {
    return em.findOne(ApiTokenEntity, { secretHash });
  },

  /** Tokens a partner can still use: not revoked, not expired; newest first. */
  active(em: EntityManager, partnerGpid: string, now = new Date()): Promise<ApiToken[]> {
    return em.find(
      ApiTokenEntity,
      { partnerGpid, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] },
      { orderBy: { id: 'desc' } },
    );
  },
};
