import type { EntityManager } from '@mikro-orm/core';
import { knexOf, outboxTable } from '@svc/platform';

const POLL_MS = 5;

/** Queries on the partner subgraph's own outbox. */
export const outboxEvents = {
  /**
   * Wait until the relay has handed `eventId` to the bus, at most `timeoutMs`; false on timeout.
   * Revocations wait for this so that, once the caller has the answer, every gateway has (or is
   * about to have) evicted the credential: "revoked" means refused from the next request on.
   */
  async awaitPublished(em: EntityManager, eventId: string, timeoutMs: number): Promise<boolean> {
    const knex = knexOf(em);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const row = (await knex(outboxTable('partner')).where('id', eventId).first('published_at')) as { published_at: unknown } | undefined;
      if (row && row.published_at !== null && row.published_at !== undefined) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  },
};
