import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { UsedClientAssertionEntity } from './client-assertion.js';

/** The replay guard of private_key_jwt client assertions. */
export const clientAssertions = {
  /**
   * Record an assertion as used; false when it was used before (a replay). Runs in its own
   * statement so the unique key, not a read-then-write, decides between two concurrent requests.
   */
  async consume(em: EntityManager, clientId: string, jtiHash: string, expiresAt: Date, now: Date): Promise<boolean> {
    const fork = em.fork();
    // Expired entries can never be replayed (the assertion's exp is checked first): drop them.
    await fork.nativeDelete(UsedClientAssertionEntity, { expiresAt: { $lt: now } });
    try {
      await fork.insert(UsedClientAssertionEntity, { clientId, jtiHash, expiresAt });
      return true;
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) return false;
      throw err;
    }
  },
};
