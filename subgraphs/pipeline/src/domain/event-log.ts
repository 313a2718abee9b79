import type { EntityManager } from '@mikro-orm/core';
import type { EventEnvelope } from '@svc/platform';
import { LoggedEventEntity, type LoggedEvent } from '../entities/logged-event.js';

/**
 * The platform's event log. Recording is idempotent by event id (the bus delivers at least once);
 * readers that race the consumer can wait for an event to be recorded.
 */
export class EventLog {
  private readonly waiters = new Map<string, Set<() => void>>();

  async record(em: EntityManager, event: EventEnvelope): Promise<void> {
    if (!(await em.findOne(LoggedEventEntity, { id: event.id }))) {
      em.create(LoggedEventEntity, {
        id: event.id,
        type: event.type,
        partnerGpid: event.partner_gpid,
        occurredAt: new Date(event.occurred_at),
        data: event.data,
        recordedAt: new Date(),
      });
      try {
        await em.flush();
      } catch (err) {
        // A concurrent consumer recorded the same id first: that is the idempotent outcome.
        if (!(await em.fork().findOne(LoggedEventEntity, { id: event.id }))) throw err;
      }
    }
    for (const wake of this.waiters.get(event.id) ?? []) wake();
    this.waiters.delete(event.id);
  }

  /** The event, waiting up to `waitMs` for it to be recorded when it is not yet. */
  async find(em: EntityManager, id: string, waitMs: number): Promise<LoggedEvent | null> {
    if (waitMs <= 0) return em.findOne(LoggedEventEntity, { id });
    // Listen before looking, so a recording between the two cannot be missed.
    let wake!: () => void;
    const recorded = new Promise<void>((resolve) => (wake = resolve));
    const set = this.waiters.get(id) ?? new Set();
    set.add(wake);
    this.waiters.set(id, set);
    let timer: NodeJS.Timeout | undefined;
    try {
      const found = await em.findOne(LoggedEventEntity, { id });
      if (found) return found;
      await Promise.race([recorded, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      return await em.fork().findOne(LoggedEventEntity, { id });
    } finally {
      clearTimeout(timer);
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(id) === set) this.waiters.delete(id);
    }
  }
}
