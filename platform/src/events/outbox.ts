import { DateTimeType, EntitySchema, type EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import { chunks } from '../db/chunks.js';
import { isPostgres, knexOf, type Orm } from '../db/database.js';
import { DependencyUnavailable, isConnectionFailure } from '../dependency-health.js';
import type { EventEnvelope } from './envelope.js';
import type { Metrics } from '../metrics.js';
import type { StreamAppender } from './stream.js';
import { publishSpan } from './event-spans.js';
import { detached } from '../tracing/spans.js';

/** A row of an owner's outbox: the event, written in the same transaction as the change it describes. */
export interface OutboxRow {
  id: string;
  type: string;
  partnerGpid: string | null;
  occurredAt: Date;
  data: Record<string, unknown>;
  publishedAt: Date | null;
  /** The W3C traceparent of the work that made the event (tracing on), for its consumers' spans. */
  traceParent?: string | null;
}

export function outboxTable(owner: string): string {
  return `${owner}_outbox`;
}

/** The outbox entity of one owner (every subgraph has its own outbox table). */
export function outboxEntity(owner: string): EntitySchema<OutboxRow> {
  return new EntitySchema<OutboxRow>({
    name: 'OutboxEvent',
    tableName: outboxTable(owner),
    properties: {
      id: { type: 'string', primary: true },
      type: { type: 'string' },
      partnerGpid: { type: 'string', nullable: true },
      occurredAt: { type: DateTimeType },
      data: { type: 'json' },
      publishedAt: { type: DateTimeType, nullable: true },
      traceParent: { type: 'string', nullable: true },
    },
  });
}

/** The outbox table, for the owner's first migration. */
export function createOutboxTable(schema: Knex.SchemaBuilder, owner: string): Knex.SchemaBuilder {
  return schema.createTable(outboxTable(owner), (t) => {
    t.string('id', 40).primary();
    t.string('type', 100).notNullable();
    t.string('partner_gpid', 40).nullable();
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.json('data').notNullable();
    t.timestamp('published_at', { useTz: true }).nullable();
    t.index(['published_at', 'id'], `${owner}_outbox_pending_idx`);
  });
}

/** The outbox's `trace_parent` column (tracing): one migration of each owner adds it. */
export function addOutboxTraceParent(schema: Knex.SchemaBuilder, owner: string): Knex.SchemaBuilder {
  return schema.alterTable(outboxTable(owner), (t) => {
    t.string('trace_parent', 64).nullable();
  });
}

/**
 * Stage an event in the unit of work of `em`: it commits or rolls back with the change it
 * describes. Call `OutboxRelay.wake()` after the flush to publish without waiting for a sweep.
 */
export function recordEvent(em: EntityManager, event: EventEnvelope): void {
  em.create('OutboxEvent', {
    id: event.id,
    type: event.type,
    partnerGpid: event.partner_gpid,
    occurredAt: new Date(event.occurred_at),
    data: event.data,
    publishedAt: null,
    traceParent: event.traceparent ?? null,
  });
}

/**
 * Commit one event now, outside any change of the caller's: in `em`'s transaction when it has one
 * (it commits with it), else in a unit of work of its own. The root fields of a GraphQL query run
 * at the same time on the request's one entity manager, and a flush of that manager lends its
 * transaction to whatever the others query meanwhile (a query that lands after the commit fails);
 * a fork's flush keeps its transaction to itself. Call `OutboxRelay.wake()` afterwards.
 */
export async function commitEvent(em: EntityManager, event: EventEnvelope): Promise<void> {
  const own = em.isInTransaction() ? em : em.fork();
  recordEvent(own, event);
  await own.flush();
}

/** Bound parameters per multi-row outbox INSERT (under SQLite's 32766 and PostgreSQL's 65535). */
const MAX_OUTBOX_PARAMS = 12_000;

/**
 * Insert many events into the outbox of `em`'s owner with a few multi-row INSERTs, in `em`'s
 * transaction (what `recordEvent` does for one, without a unit-of-work entity per event): for
 * writes of hundreds of resources at once. Events staged with `recordEvent` earlier are flushed
 * first, so the outbox keeps the order in which the events were made.
 */
export async function insertEvents(em: EntityManager, events: readonly EventEnvelope[]): Promise<void> {
  if (events.length === 0) return;
  await em.flush();
  const table = em.getMetadata().find('OutboxEvent')!.tableName;
  const knex = knexOf(em);
  const date = (at: string) => em.getPlatform().processDateProperty(new Date(at)) as Knex.Value;
  const columns = ['id', 'type', 'partner_gpid', 'occurred_at', 'data', 'published_at', 'trace_parent'];
  const size = Math.floor(MAX_OUTBOX_PARAMS / columns.length);
  const head = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
  for (const chunk of chunks(events, size)) {
    const bindings: Knex.Value[] = [];
    for (const e of chunk) bindings.push(e.id, e.type, e.partner_gpid, date(e.occurred_at), JSON.stringify(e.data), null, e.traceparent ?? null);
    await knex.raw(head + new Array<string>(chunk.length).fill('(?, ?, ?, ?, ?, ?, ?)').join(', '), bindings);
  }
}

/**
 * Rows per relay sweep. Each sweep pays one scan for unpublished rows (which, under a write load,
 * walks index entries of rows published since the last vacuum), one append and one update.
 */
const RELAY_BATCH = 500;

/**
 * PostgreSQL: how long a relay waits for the claim on its outbox while another process's relay of
 * the same outbox holds it. A sweep takes milliseconds; after this wait the relay leaves the rows to
 * the holder (or to its own next sweep).
 */
export const RELAY_CLAIM_WAIT_MS = 5_000;
/**
 * PostgreSQL: the claim's lease. A relay that holds its claim without a word to the database for
 * this long (frozen, or waiting on a stream that does not answer) has its session ended by
 * PostgreSQL (`idle_in_transaction_session_timeout`), which frees the claim for another process;
 * its rows are relayed again, which the stream recognizes (see `StreamAppender.append`).
 */
export const RELAY_CLAIM_LEASE_MS = 30_000;
/** The first key of the relays' advisory locks (the second is the outbox table's name, hashed). */
const RELAY_LOCK_SPACE = 0x0b0c;

interface PendingRow {
  id: string;
  type: string;
  partner_gpid: string | null;
  occurred_at: Date | string | number;
  data: string | Record<string, unknown>;
  trace_parent?: string | null;
}

function toDate(value: Date | string | number): Date {
  return value instanceof Date ? value : new Date(value);
}

/** PostgreSQL's `lock_not_available`: the claim's wait ran out. */
function isLockTimeout(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '55P03';
}

/**
 * Hands committed outbox rows to the durable stream, in order, and marks them published only once
 * the stream holds them (Redis XADD answered; in the embedded default the outbox is the stream, and
 * appending publishes the events on its live tail).
 *
 * **One relay at a time per outbox.** Every process that runs a subgraph relays its outbox (the
 * subgraph's own process, the worker, replicas of either). On PostgreSQL a sweep claims the outbox
 * exclusively for its transaction (`pg_advisory_xact_lock` on the table's name): select, append,
 * mark published, commit, all under the claim, so no two processes ever append the same rows. A
 * relay that finds the claim held waits for it (a sweep is short), then finds the rows published.
 * The claim ends with the transaction: a relay killed at any point frees it at once (its session
 * ends), and one that stalls while holding it loses it after {@link RELAY_CLAIM_LEASE_MS}. Either
 * may have appended rows it did not mark: the next relay appends them again, and the stream, which
 * remembers the ids it holds, skips them and counts them (`svc_outbox_events_relayed_again_total`).
 * On SQLite one process owns the file (and the SQLite write lock serializes anyway).
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly postgres: boolean;

  constructor(
    private readonly orm: Orm,
    private readonly owner: string,
    private readonly stream: StreamAppender,
    private readonly pollMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly options: { metrics?: Pick<Metrics, 'eventsRelayed' | 'eventsRelayedAgain'>; leaseMs?: number } = {},
  ) {
    this.postgres = isPostgres(orm);
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Publish now; concurrent wakes coalesce into one more sweep. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    // A request's commit wakes the relay: its sweep belongs to no request's trace (each event's
    // publish span joins the trace of its own traceparent).
    this.running = detached(() => this.sweepUntilEmpty()).finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Publish everything committed so far, then stop polling. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.sweepUntilEmpty();
    this.stopped = true;
  }

  /** Resolves when every row committed before the call is published. */
  async flush(): Promise<void> {
    await this.running;
    await this.sweepUntilEmpty();
  }

  private async sweepUntilEmpty(): Promise<void> {
    try {
      while ((await this.sweep()) > 0);
    } catch (err) {
      this.onError(err);
    }
  }

  private async sweep(): Promise<number> {
    const knex = knexOf(this.orm);
    if (!this.postgres) return this.relay(knex, null);
    const trx = await knex.transaction();
    try {
      try {
        await trx.raw(`set local lock_timeout = ${RELAY_CLAIM_WAIT_MS}`);
        await trx.raw(`set local idle_in_transaction_session_timeout = ${Math.max(1, Math.round(this.options.leaseMs ?? RELAY_CLAIM_LEASE_MS))}`);
        await trx.raw('select pg_advisory_xact_lock(?, hashtext(?))', [RELAY_LOCK_SPACE, outboxTable(this.owner)]);
      } catch (err) {
        // Another process's relay held the claim for the whole wait: the rows are its to relay.
        if (isLockTimeout(err)) return 0;
        throw err;
      }
      return await this.relay(trx, trx);
    } catch (err) {
      // Knex ends a transaction whose connection dropped, and the next statement then fails with
      // "Transaction query already complete" instead of the connection's own error: an outage of
      // the database, for the tracker, not a relay failure.
      if (trx.isCompleted() && !isConnectionFailure(err) && /Transaction query already complete/.test(String((err as Error).message))) {
        throw new DependencyUnavailable(`database:${this.owner}`, err);
      }
      throw err;
    } finally {
      if (!trx.isCompleted()) await trx.rollback().catch(() => undefined);
    }
  }

  /** One batch: read unpublished rows (under the claim on PostgreSQL), append them, mark them. */
  private async relay(db: Knex, claim: Knex.Transaction | null): Promise<number> {
    const table = outboxTable(this.owner);
    const rows: PendingRow[] = await db(table).whereNull('published_at').orderBy('id').limit(RELAY_BATCH).select('id', 'type', 'partner_gpid', 'occurred_at', 'data', 'trace_parent');
    if (rows.length === 0) {
      await claim?.commit();
      return 0;
    }
    const envelopes: EventEnvelope[] = rows.map((row) => ({
      id: row.id,
      type: row.type,
      occurred_at: toDate(row.occurred_at).toISOString(),
      partner_gpid: row.partner_gpid,
      data: typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : row.data,
      ...(row.trace_parent ? { traceparent: row.trace_parent } : {}),
    }));
    let marked = false;
    const markPublished = async (at: Date) => {
      await db(table)
        .whereIn('id', rows.map((r) => r.id))
        .update({ published_at: this.orm.em.getPlatform().processDateProperty(at) });
      await claim?.commit();
      marked = true;
    };
    // Throws while the stream is unreachable: the rows stay unpublished and the next sweep retries.
    const repeated = await publishSpan(envelopes, this.owner, () => this.stream.append(envelopes, this.owner, markPublished));
    if (!marked) await markPublished(new Date());
    this.options.metrics?.eventsRelayed.inc({ owner: this.owner }, rows.length);
    if (repeated > 0) this.options.metrics?.eventsRelayedAgain.inc({ owner: this.owner }, repeated);
    return rows.length;
  }
}
