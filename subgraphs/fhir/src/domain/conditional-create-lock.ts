import { knexOf } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import { dialectOf } from '../entities/resource-store.js';

/**
 * Conditional create (If-None-Exist) is "search, then insert when nothing matched". Two transactions
 * running the same one at the same moment both find nothing and both insert; on PostgreSQL with
 * several workers (copies of one wearable batch, a retried transaction Bundle) that stored one
 * reading twice. So, inside the create's transaction and before its search, this takes a
 * transaction-scoped advisory lock named by (partner, resource type, query): the second
 * transaction waits until the first commits, and its search (a new snapshot under READ COMMITTED)
 * then finds the first one's resource. Different queries never wait for each other.
 *
 * SQLite needs nothing: one process with one connection, whose write transactions are serialized.
 */
export async function serializeConditionalCreate(em: EntityManager, partnerGpid: string | null, resourceType: string, query: string): Promise<void> {
  const knex = knexOf(em);
  if (dialectOf(knex) !== 'postgresql') return;
  await knex.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`fhir.if-none-exist|${partnerGpid ?? ''}|${resourceType}|${query}`]);
}
