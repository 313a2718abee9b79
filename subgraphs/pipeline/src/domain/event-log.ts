import type { EntityManager } from '@mikro-orm/core';
import { chunks, knexOf, DomainError, type EventEnvelope } from '@svc/platform';
import { LoggedEventEntity, type LoggedEvent } from '../entities/logged-event.js';

/** Events per INSERT when recording (6 bound values each). */
const RECORD_CHUNK = 500;

/** How many readers of one process may wait for an event at once, unless configured. */
export const DEFAULT_MAX_EVENT_WAITERS = 1000;

/**
 * The platform's event log. Recording is idempotent by event id (the bus delivers at least once);
 * readers that race the consumer can wait for an event to be recorded, at most `maxWaiters` at once
 * in this process.
 */
export class EventLog {
  private readonly waiters = new Map<string, Set<() => void>>();
  private waiting = 0;

  constructor(private readonly maxWaiters = DEFAULT_MAX_EVENT_WAITERS) {}

  /** Readers waiting right now. */
  get waiterCount(): number {
    return this.waiting;
  }

  /**
   * Record consecutive events with multi-row INSERTs (bound values, so each statement shape is
   * prepared once; no lookup first); an event recorded before is left alone, so a redelivered batch
   * does nothing. Wakes the readers waiting for any of them.
   */
  async record(em: EntityManager, events: readonly EventEnvelope[]): Promise<void> {
    const date = (d: Date) => em.getPlatform().processDateProperty(d);
    const now = new Date();
    for (const chunk of chunks(events, RECORD_CHUNK)) {
      const rows = chunk.map((event) => ({
        id: event.id,
        type: event.type,
        partner_gpid: event.partner_gpid,
        occurred_at: date(new Date(event.occurred_at)),
        data: JSON.stringify(event.data),
        recorded_at: date(now),
      }));
      await knexOf(em)('pipeline_events').insert(rows).onConflict('id').ignore();
    }
    for (const event of events) {
      for (const wake of this.waiters.get(event.id) ?? []) wake();
      this.waiters.delete(event.id);
    }
  }

  /** One page of events, newest first, for one partner (or all when `partnerGpid` is null). */
  page(em: EntityManager, options: { partnerGpid: string | null; types: readonly string[] | null; size: number; beforeId: string | null }): Promise<LoggedEvent[]> {
    const where: Record<string, unknown> = {};
    if (options.partnerGpid) where['partnerGpid'] = options.partnerGpid;
    if (options.types?.length) where['type'] = { $in: [...options.types] };
    if (options.beforeId) where['id'] = { $lt: options.beforeId };
    return em.find(LoggedEventEntity, where, { orderBy: { id: 'desc' }, limit: options.size + 1 });
  }

  /**
   * The events recorded after `anchor` (in recording order), for a subscriber that resumes: every
   * event recorded from `slackMs` before the anchor on (those are at most a few that the subscriber
   * may already have; delivery is at-least-once), except the anchor itself. Ordered by
   * (recordedAt, id); `from` continues a previous page.
   */
  async replay(
    em: EntityManager,
    options: { anchor: LoggedEvent; partnerGpid: string | null; types: readonly string[] | null; size: number; from: { recordedAt: Date; id: string } | null; slackMs: number },
  ): Promise<LoggedEvent[]> {
    const where: Record<string, unknown>[] = [{ id: { $ne: options.anchor.id } }];
    if (options.partnerGpid) where.push({ partnerGpid: options.partnerGpid });
    if (options.types?.length) where.push({ type: { $in: [...options.types] } });
    if (options.from) {
      where.push({ $or: [{ recordedAt: { $gt: options.from.recordedAt } }, { recordedAt: options.from.recordedAt, id: { $gt: options.from.id } }] });
    } else {
      where.push({ recordedAt: { $gte: new Date(options.anchor.recordedAt.getTime() - options.slackMs) } });
    }
    return em.find(LoggedEventEntity, { $and: where }, { orderBy: { recordedAt: 'asc', id: 'asc' }, limit: options.size + 1 });
  }

  /**
   * The event, waiting up to `waitMs` for it to be recorded when it is not yet.
   * @throws DomainError `SERVER_BUSY` when the event is not recorded yet and `maxWaiters` readers
   *   are already waiting.
   */
  async find(em: EntityManager, id: string, waitMs: number): Promise<LoggedEvent | null> {
    if (waitMs <= 0) return em.findOne(LoggedEventEntity, { id });
    this.waiting++;
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
      // Only a reader that would really wait is refused: a recorded event is always answered.
      if (this.waiting > this.maxWaiters) {
        throw new DomainError('SERVER_BUSY', `${this.maxWaiters} requests are already waiting for events; retry shortly, or ask without waitMs.`, { details: { limit: this.maxWaiters } });
      }
      await Promise.race([recorded, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      return await em.fork().findOne(LoggedEventEntity, { id });
    } finally {
      this.waiting--;
      clearTimeout(timer);
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(id) === set) this.waiters.delete(id);
    }
  }
}
