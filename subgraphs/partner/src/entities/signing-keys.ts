import type { EntityManager } from '@mikro-orm/core';
import { SigningKeyEntity, type SigningKey } from './signing-key.js';

/** Signing key queries. */
export const signingKeys = {
  /** The newest key not yet retired: the one new tokens are signed with. */
  current(em: EntityManager): Promise<SigningKey | null> {
    return em.findOne(SigningKeyEntity, { retiredAt: null }, { orderBy: { kid: 'desc' } });
  },

  /** Every key not yet retired (normally one; two replicas creating the first key at once make two). */
  unretired(em: EntityManager): Promise<SigningKey[]> {
    return em.find(SigningKeyEntity, { retiredAt: null });
  },

  /** Keys the JWKS lists: current ones and retired ones whose tokens may still be alive; newest first. */
  published(em: EntityManager, now: Date): Promise<SigningKey[]> {
    return em.find(SigningKeyEntity, { $or: [{ publishedUntil: null }, { publishedUntil: { $gt: now } }] }, { orderBy: { kid: 'desc' } });
  },
};
