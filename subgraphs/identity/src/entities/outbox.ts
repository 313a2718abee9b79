import { outboxTable, type EventEnvelope } from '@svc/platform';
import type { Sql } from './sql.js';

/**
 * Stages an event in the identity outbox inside `tx` (the transactional outbox: the row commits or
 * rolls back with the change it describes; the relay publishes it). Same row shape as the
 * platform's `recordEvent`, written with knex because the registry works below the entity manager.
 */
export async function stageEvent(tx: Sql, event: EventEnvelope): Promise<void> {
  await tx.table(outboxTable('identity')).insert({
    id: event.id,
    type: event.type,
    partner_gpid: event.partner_gpid,
    occurred_at: tx.date(new Date(event.occurred_at)),
    data: JSON.stringify(event.data),
    published_at: null,
    trace_parent: event.traceparent ?? null,
  });
}
