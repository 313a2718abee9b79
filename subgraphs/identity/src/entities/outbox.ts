import { chunks, outboxTable, type EventEnvelope } from '@svc/platform';
import type { Sql } from './sql.js';

/**
 * Stages an event in the identity outbox inside `tx` (the transactional outbox: the row commits or
 * rolls back with the change it describes; the relay publishes it). Same row shape as the
 * platform's `recordEvent`, written with knex because the registry works below the entity manager.
 */
export async function stageEvent(tx: Sql, event: EventEnvelope): Promise<void> {
  await stageEvents(tx, [event]);
}

/** Several events, in their order, with multi-row INSERTs (the outbox keeps the order they were made in). */
export async function stageEvents(tx: Sql, events: readonly EventEnvelope[]): Promise<void> {
  for (const part of chunks(events, 100)) {
    await tx.table(outboxTable('identity')).insert(
      part.map((event) => ({
        id: event.id,
        type: event.type,
        partner_gpid: event.partner_gpid,
        occurred_at: tx.date(new Date(event.occurred_at)),
        data: JSON.stringify(event.data),
        published_at: null,
        trace_parent: event.traceparent ?? null,
      })),
    );
  }
}
