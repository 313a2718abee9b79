import type { Knex } from '@mikro-orm/knex';
import { isPostgres, knexOf, type Orm } from '../db/database.js';
import type { Logger } from '../logging.js';
import type { EventBus } from './bus.js';
import type { EventEnvelope } from './envelope.js';
import { EVENT_TYPES } from './event-types.js';
import { isId } from '../ids.js';
import { outboxTable } from './outbox.js';
import {
  fixedWidth,
  handleInOrder,
  stoppableSleep,
  type ConsumeOptions,
  type ConsumerLag,
  type EventBackbone,
  type EventStream,
  type MarkPublished,
  type PositionedEvent,
  type ReadFilter,
  type StopConsuming,
  type StreamConsumer,
  type StreamPage,
  type StreamPosition,
  type TailHandler,
} from './stream.js';

/** How long published outbox rows stay readable by a consumer that was down (embedded default). */
export const OUTBOX_RETENTION_MS = 7 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;
const BATCH = 200;

interface OutboxRecord {
  seq?: number;
  published_at?: Date | string | number | null;
  id: string;
  type: string;
  partner_gpid: string | null;
  occurred_at: Date | string | number;
  /** The event's data as JSON text (SQLite's text column; PostgreSQL's json column read as `data::text`). */
  data: string;
  trace_parent?: string | null;
}

/** A position after a row: its rowid on SQLite; `<published ms>|<id>` on PostgreSQL (see README). */
function positionAfter(row: OutboxRecord, postgres: boolean): string {
  if (!postgres) return String(row.seq);
  const at = row.published_at instanceof Date ? row.published_at : new Date(row.published_at!);
  return `${at.getTime()}|${row.id}`;
}

/** Milliseconds of a stored date (SQLite stores epoch milliseconds; PostgreSQL answers a Date). */
function millisOf(value: Date | string | number): number {
  return value instanceof Date ? value.getTime() : typeof value === 'number' ? value : new Date(value).getTime();
}

/**
 * An event's position in the embedded stream, `<published_at ms, 15 digits>|<event id>`: the order
 * in which the live tail delivered the events (see `append`).
 */
function streamPosition(publishedAtMs: number, id: string): StreamPosition {
  return `${fixedWidth(publishedAtMs, 15)}|${id}`;
}

function parsePosition(position: StreamPosition): { at: number; id: string } | null {
  const [ms, id] = position.split('|');
  if (!ms || !/^\d{15}$/.test(ms) || id === undefined) return null;
  return { at: Number(ms), id };
}

/** The event of an outbox row, with its own copy of the row's data (parsed from its text). */
function envelopeOf(row: OutboxRecord): EventEnvelope {
  return {
    id: row.id,
    type: row.type,
    occurred_at: (row.occurred_at instanceof Date ? row.occurred_at : new Date(row.occurred_at)).toISOString(),
    partner_gpid: row.partner_gpid,
    data: JSON.parse(row.data) as Record<string, unknown>,
    ...(row.trace_parent ? { traceparent: row.trace_parent } : {}),
  };
}

const positionTables = new WeakMap<Knex, Map<string, Promise<void>>>();

/** Create the positions table once per database, however many consumers start at the same time. */
function ensurePositionsTable(knex: Knex, table: string): Promise<void> {
  const tables = positionTables.get(knex) ?? new Map<string, Promise<void>>();
  positionTables.set(knex, tables);
  let ensured = tables.get(table);
  if (!ensured) {
    ensured = knex.schema
      .hasTable(table)
      .then(async (exists) => {
        if (exists) return;
        await knex.schema.createTable(table, (t) => {
          t.string('consumer', 100).notNullable();
          t.string('source', 100).notNullable();
          t.string('position', 80).notNullable();
          t.primary(['consumer', 'source']);
        });
      })
      .catch(async (err: unknown) => {
        tables.delete(table);
        // Another process created it between the check and the create: that is the wanted outcome.
        if (!(await knex.schema.hasTable(table))) throw err;
      });
    tables.set(table, ensured);
  }
  return ensured;
}

/** The table where one owner keeps the positions of the consumers it runs. */
export function positionsTable(owner: string): string {
  return `${owner}_stream_positions`;
}

/**
 * The embedded default's stream: the owners' SQLite outbox tables themselves. Each owner's file is
 * written by this one process, so rowid order is commit order; a consumer's position is, per source
 * outbox, the last rowid it finished, stored in the consuming owner's own database. Published rows
 * are kept for {@link OUTBOX_RETENTION_MS}, then pruned (the newest row of a table always stays, so
 * rowids never restart). Live fan-out (`tail`) is the in-process bus the relay publishes to.
 */
export class OutboxStream implements EventBackbone {
  private readonly sources = new Map<string, Orm>();
  private readonly wakers = new Set<() => void>();
  /** Per source, how many appends woke the consumers: a consumer skips a source it has read since. */
  private readonly appended = new Map<string, number>();
  private readonly stops = new Set<StopConsuming>();
  private readonly pruner: NodeJS.Timeout;
  private readonly tailHandlers = new Set<TailHandler>();
  /** Appends run one after the other (see `append`). */
  private appending: Promise<unknown> = Promise.resolve();
  /** The publication time given to the last append; each append gets a later one. */
  private lastPublishedMs = 0;

  constructor(
    private readonly bus: EventBus,
    private readonly logger: Logger,
    private readonly pollMs: number,
    private readonly retentionMs = OUTBOX_RETENTION_MS,
  ) {
    this.pruner = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  forOwner(owner: string, orm: Orm): EventStream & { detach(): void } {
    this.sources.set(owner, orm);
    return {
      detach: () => void (this.sources.get(owner) === orm && this.sources.delete(owner)),
      consume: (name, handler, options) => this.consumeInto(owner, orm, name, handler, options),
      tail: (handler) => this.tail(handler),
      lag: (name) => this.lagOf(owner, orm, name),
    };
  }

  consume(): StopConsuming {
    throw new Error('In the embedded default a durable consumer belongs to an owner: use the stream of a subgraph runtime.');
  }

  lag(): Promise<ConsumerLag> {
    return Promise.reject(new Error('In the embedded default a durable consumer belongs to an owner: use the stream of a subgraph runtime.'));
  }

  /**
   * Every event appended from now on, with its position, in the order of the positions. The
   * handlers of one event get the same copy of it, one after the other.
   */
  tail(handler: TailHandler): () => void {
    this.tailHandlers.add(handler);
    return () => void this.tailHandlers.delete(handler);
  }

  /**
   * The rows are already in the stream (the outbox). Appends run one at a time in this process: each
   * gets a publication time later than the previous one's, has the relay mark its rows published at
   * that time (`markPublished`), then wakes the consumers and hands the events, in order, to the
   * live tail and the in-process bus. So the tail delivers events in the order of `(published_at,
   * id)`, the order `readAfter` reads them back in, and an event is readable before it is on the
   * tail. A tail handler's failure is logged; nothing durable depends on the tail. The outbox never
   * holds an event twice: nothing is ever repeated (0).
   */
  async append(events: readonly EventEnvelope[] = [], source?: string, markPublished?: MarkPublished): Promise<number> {
    const turn = this.appending.then(async () => {
      const at = Math.max(Date.now(), this.lastPublishedMs + 1);
      this.lastPublishedMs = at;
      await markPublished?.(new Date(at));
      if (source === undefined) for (const name of this.sources.keys()) this.appended.set(name, (this.appended.get(name) ?? 0) + 1);
      else this.appended.set(source, (this.appended.get(source) ?? 0) + 1);
      for (const wake of this.wakers) wake();
      for (const event of events) {
        if (this.tailHandlers.size > 0) {
          const copy = structuredClone(event);
          const position = streamPosition(at, event.id);
          for (const handler of [...this.tailHandlers]) {
            try {
              await handler(copy, position);
            } catch (err) {
              this.logger.error({ err, eventId: event.id }, 'event tail handler failed');
            }
          }
        }
        await this.bus.publish(event).catch((err: unknown) => this.logger.error({ err, eventId: event.id }, 'publishing on the in-process bus failed'));
      }
    });
    this.appending = turn.catch(() => undefined);
    await turn;
    return 0;
  }

  /** The event in the outbox of some source, once published, with its position. */
  async locate(eventId: string): Promise<PositionedEvent | null> {
    if (!isId('evt', eventId)) return null;
    for (const [source, orm] of this.sources) {
      const knex = knexOf(orm);
      if (!(await knex.schema.hasTable(outboxTable(source)))) continue;
      const row = (await knex(outboxTable(source))
        .where({ id: eventId })
        .whereNotNull('published_at')
        .first('published_at', 'id', 'type', 'partner_gpid', 'occurred_at', 'trace_parent', isPostgres(orm) ? knex.raw('data::text as data') : 'data')) as OutboxRecord | undefined;
      if (row) return { event: envelopeOf(row), position: streamPosition(millisOf(row.published_at!), row.id) };
    }
    return null;
  }

  /**
   * The published rows of every source after `position` in `(published_at, id)` order that match
   * the filter: each source read up to `count` rows past the position, and the first `count` of
   * them all taken (so a page never skips a row of a source that had fewer to give).
   */
  async readAfter(position: StreamPosition, filter: ReadFilter, count = 200): Promise<StreamPage> {
    const from = parsePosition(position);
    if (!from) throw new Error(`Not a position of the embedded stream: ${position}`);
    const rows: { row: OutboxRecord; position: StreamPosition }[] = [];
    let full = false;
    for (const [source, orm] of this.sources) {
      const knex = knexOf(orm);
      if (!(await knex.schema.hasTable(outboxTable(source)))) continue;
      const after = orm.em.getPlatform().processDateProperty(new Date(from.at)) as Date;
      const query = knex(outboxTable(source))
        .whereNotNull('published_at')
        .andWhere((q) => q.where('published_at', '>', after).orWhere((q2) => q2.where('published_at', '=', after).andWhere('id', '>', from.id)));
      if (filter.partnerGpid !== null) query.andWhere('partner_gpid', filter.partnerGpid);
      if (filter.types) query.whereIn('type', [...filter.types]);
      const found = (await query
        .orderBy([{ column: 'published_at' }, { column: 'id' }])
        .limit(count)
        .select('published_at', 'id', 'type', 'partner_gpid', 'occurred_at', 'trace_parent', isPostgres(orm) ? knex.raw('data::text as data') : 'data')) as OutboxRecord[];
      if (found.length === count) full = true;
      for (const row of found) rows.push({ row, position: streamPosition(millisOf(row.published_at!), row.id) });
    }
    rows.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
    const page = rows.slice(0, count);
    const next = full || rows.length > count ? (page.at(-1)?.position ?? null) : null;
    return { events: page.map(({ row, position }) => ({ event: envelopeOf(row), position })), next };
  }

  async close(): Promise<void> {
    clearInterval(this.pruner);
    await Promise.all([...this.stops].map((stop) => stop()));
  }

  /** Delete published rows older than the retention, keeping each table's newest row. */
  async prune(now = Date.now()): Promise<number> {
    let pruned = 0;
    for (const [owner, orm] of this.sources) {
      try {
        const knex = knexOf(orm);
        const table = outboxTable(owner);
        const old = knex(table)
          .whereNotNull('published_at')
          .andWhere('published_at', '<', orm.em.getPlatform().processDateProperty(new Date(now - this.retentionMs)) as Date);
        if (isPostgres(orm)) {
          pruned += await old.delete();
          continue;
        }
        const newest = (await knex(table).max({ seq: 'rowid' }).first()) as { seq: number | null } | undefined;
        if (!newest?.seq) continue;
        pruned += await old.andWhere('rowid', '<', newest.seq).delete();
      } catch (err) {
        this.logger.warn({ err, owner }, 'outbox pruning failed');
      }
    }
    return pruned;
  }

  /**
   * The rows of every source past the consumer's stored position (rowid on SQLite; published rows
   * after `(published_at, id)` on PostgreSQL), and the age of the oldest by its `occurred_at`.
   */
  private async lagOf(owner: string, orm: Orm, name: string): Promise<ConsumerLag> {
    const knex = knexOf(orm);
    const positions = positionsTable(owner);
    await ensurePositionsTable(knex, positions);
    let unacknowledged = 0;
    let oldest: number | null = null;
    for (const [source, sourceOrm] of this.sources) {
      const row = (await knex(positions).where({ consumer: name, source }).first('position')) as { position: number | string } | undefined;
      const position = row ? String(row.position) : null;
      // An owner without an outbox table (yet) has nothing in the stream.
      if (!(await knexOf(sourceOrm).schema.hasTable(outboxTable(source)))) continue;
      const table = knexOf(sourceOrm)(outboxTable(source));
      let past;
      if (!isPostgres(sourceOrm)) {
        past = table.where('rowid', '>', Number(position ?? 0));
      } else {
        const [ms, id] = (position ?? '0|').split('|');
        const at = new Date(Number(ms));
        past = table
          .whereNotNull('published_at')
          .andWhere((q) => q.where('published_at', '>', at).orWhere((q2) => q2.where('published_at', '=', at).andWhere('id', '>', id ?? '')));
      }
      const counted = (await past.count({ n: '*' }).min({ oldest: 'occurred_at' }).first()) as { n: number | string; oldest: Date | string | number | null } | undefined;
      unacknowledged += Number(counted?.n ?? 0);
      if (counted?.oldest !== null && counted?.oldest !== undefined) {
        const at = (counted.oldest instanceof Date ? counted.oldest : new Date(counted.oldest)).getTime();
        oldest = oldest === null ? at : Math.min(oldest, at);
      }
    }
    return { consumer: name, unacknowledged, oldestAgeMs: oldest === null ? null : Math.max(0, Date.now() - oldest) };
  }

  private consumeInto(owner: string, orm: Orm, name: string, handler: StreamConsumer, { types }: ConsumeOptions = {}): StopConsuming {
    const knex = knexOf(orm);
    const positions = positionsTable(owner);
    const { sleep, wakeAll } = stoppableSleep();
    let stopped = false;
    const state = { failing: false, stopped: () => stopped, logger: this.logger, sleep };
    const ensured = ensurePositionsTable(knex, positions);
    // This loop is the only writer of its positions (one process owns the embedded files), so they
    // are read from the database once per source and then kept here.
    const positionsRead = new Map<string, string | null>();
    const readPosition = async (source: string): Promise<string | null> => {
      if (positionsRead.has(source)) return positionsRead.get(source)!;
      const row = (await knex(positions).where({ consumer: name, source }).first('position')) as { position: number | string } | undefined;
      const position = row ? String(row.position) : null;
      positionsRead.set(source, position);
      return position;
    };
    const savePosition = async (source: string, position: string): Promise<void> => {
      await knex(positions).insert({ consumer: name, source, position }).onConflict(['consumer', 'source']).merge({ position });
      positionsRead.set(source, position);
    };

    // A wake reads only the sources appended to since this consumer last read them to the end;
    // every poll interval it reads them all (rows can also arrive without a wake: another process,
    // a relay that appended before this consumer started).
    const caughtUp = new Map<string, number>();
    let lastFullRead = 0;

    // The catalog's types this consumer does not handle, passed over in SQL on SQLite: a consumer of
    // a few types then never reads the data of the rows a FHIR ingest fills the outbox with. Types
    // outside the catalog (internal hand-offs) are read and decided by `types` as before.
    const passedOver = types ? EVENT_TYPES.map((t) => t.type).filter((type) => !types(type)) : [];

    let sourceFailing = false;
    const once = async (): Promise<number> => {
      let handled = 0;
      const readAll = Date.now() - lastFullRead >= this.pollMs;
      if (readAll) lastFullRead = Date.now();
      for (const [source, sourceOrm] of this.sources) {
        if (stopped) break;
        const generation = this.appended.get(source) ?? 0;
        if (!readAll && caughtUp.get(source) === generation) continue;
        const position = await readPosition(source);
        const postgres = isPostgres(sourceOrm);
        const table = knexOf(sourceOrm)(outboxTable(source));
        const columns = ['id', 'type', 'partner_gpid', 'occurred_at', 'data', 'trace_parent'];
        let rows: OutboxRecord[];
        // SQLite: the newest rowid when the read starts, when rows are passed over in SQL. Rows
        // committed later have larger rowids (one writer, rowids never reused), so once the read
        // ends short of a batch every row up to it has been read or passed over.
        let last: number | undefined;
        if (!postgres) {
          if (passedOver.length > 0) {
            const newest = (await table.clone().max({ seq: 'rowid' }).first()) as { seq: number | null } | undefined;
            last = newest?.seq ?? 0;
            table.where('rowid', '<=', last).whereNotIn('type', passedOver);
          }
          rows = (await table.where('rowid', '>', Number(position ?? 0)).orderBy('rowid').limit(BATCH).select('rowid as seq', ...columns)) as OutboxRecord[];
        } else {
          // PostgreSQL has no commit-ordered rowid: read in the order this process's relay
          // published (published_at, id); one relay per owner in the process keeps that monotonic.
          const [ms, id] = (position ?? '0|').split('|');
          const at = new Date(Number(ms));
          rows = (await table
            .whereNotNull('published_at')
            .andWhere((q) => q.where('published_at', '>', at).orWhere((q2) => q2.where('published_at', '=', at).andWhere('id', '>', id ?? '')))
            .orderBy([{ column: 'published_at' }, { column: 'id' }])
            .limit(BATCH)
            // The data as its text (json columns are parsed by the driver otherwise): each read makes its own event of it.
            .select('published_at', ...columns.filter((c) => c !== 'data'), knexOf(sourceOrm).raw('data::text as data'))) as OutboxRecord[];
        }
        // Acknowledged once per batch: the position written is that of the last event whose handler
        // resolved (a crash before the write hands those events again; consumers are idempotent).
        const done = await handleInOrder(name, rows, (row) => (types && !types(row.type) ? null : envelopeOf(row)), handler, state);
        if (done > 0) await savePosition(source, positionAfter(rows[done - 1]!, postgres));
        handled += done;
        if (done < rows.length) return handled;
        if (rows.length < BATCH) {
          if (last !== undefined && last > Number(rows.at(-1)?.seq ?? position ?? 0)) await savePosition(source, String(last));
          caughtUp.set(source, generation);
        } else caughtUp.delete(source);
      }
      return handled;
    };
    const loop = (async () => {
      await ensured;
      // Appended to since last read (a wake that came while this loop was busy reading).
      const behind = () => [...this.sources.keys()].some((source) => caughtUp.get(source) !== (this.appended.get(source) ?? 0));
      while (!stopped) {
        let handled = 0;
        let failed = false;
        try {
          handled = await once();
          if (sourceFailing) {
            sourceFailing = false;
            this.logger.info({ consumer: name }, 'event consumer reads its sources again');
          }
        } catch (err) {
          failed = true;
          if (!sourceFailing) {
            sourceFailing = true;
            this.logger.warn({ err, consumer: name }, 'event consumer cannot read its sources; retrying');
          }
        }
        if (handled === 0 && !stopped && (failed || !behind())) await sleep(this.pollMs);
      }
    })();
    this.wakers.add(wakeAll);
    const stop: StopConsuming = async () => {
      stopped = true;
      this.wakers.delete(wakeAll);
      this.stops.delete(stop);
      wakeAll();
      await loop;
    };
    this.stops.add(stop);
    return stop;
  }
}
