import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { knexOf, openDatabase, type Orm } from '../db/database.js';
import { SchemaMigration } from '../db/schema-migration.js';
import { createLogger } from '../logging.js';
import { createMetrics } from '../metrics.js';
import { makeEvent, type EventEnvelope } from './envelope.js';
import { addOutboxTraceParent, createOutboxTable, outboxEntity, outboxTable, OutboxRelay, recordEvent } from './outbox.js';
import { RedisEventStream } from './redis-stream.js';
import type { MarkPublished, StreamAppender } from './stream.js';
import { freshStorage, TEST_REDIS_URL, USE_POSTGRES, type TestStorage } from '../../../test/support/databases.js';
import { eventually } from '../../../test/support/patience.js';

class CreateOutbox extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => createOutboxTable(s, 'src'));
    this.schema((s) => addOutboxTraceParent(s, 'src'));
  }
}

const logger = createLogger({ logLevel: 'silent', role: 'all' }, new Writable({ write: (_c, _e, done) => done() }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The relay's claim on PostgreSQL, where every process that runs a subgraph relays its outbox (the
 * subgraph's own process, the worker): two pools on one database stand for two processes.
 */
describe.runIf(USE_POSTGRES)('OutboxRelay: one relay at a time per outbox (PostgreSQL)', () => {
  let storage: TestStorage;
  const orms: Orm[] = [];
  /** A connection pool of its own on the test database, as another process has. */
  const pool = async () => {
    const orm = await openDatabase({
      config: { dataDir: storage.env['SVC_DATA_DIR']!, databaseUrl: storage.env['SVC_DATABASE_URL'] },
      owner: 'src',
      entities: [outboxEntity('src')],
      migrations: [{ name: 'm1', class: CreateOutbox }],
    });
    orms.push(orm);
    return orm;
  };
  const record = async (orm: Orm, events: EventEnvelope[]) => {
    const em = orm.em.fork();
    for (const e of events) recordEvent(em, e);
    await em.flush();
  };
  const unpublished = async (orm: Orm) => Number(((await knexOf(orm)(outboxTable('src')).whereNull('published_at').count({ n: '*' })) as { n: string }[])[0]!.n);

  beforeEach(async () => {
    storage = await freshStorage();
  });
  afterEach(async () => {
    for (const orm of orms.splice(0)) await orm.close();
    await storage.dispose();
  });

  it('hands each row to the stream once while two processes relay the same outbox at the same time', async () => {
    const [a, b] = [await pool(), await pool()];
    const handed = new Map<string, number>();
    // A stream that takes a moment per append, so two unclaimed sweeps would overlap.
    const appender: StreamAppender = {
      append: async (events, _source, markPublished?: MarkPublished) => {
        for (const e of events) handed.set(e.id, (handed.get(e.id) ?? 0) + 1);
        await sleep(5);
        await markPublished?.(new Date());
        return 0;
      },
    };
    const failures: unknown[] = [];
    const relays = [a, b].map((orm) => new OutboxRelay(orm, 'src', appender, 10, (err) => void failures.push(err)));
    relays.forEach((r) => r.start());
    const ids: string[] = [];
    for (let round = 0; round < 30; round++) {
      const events = Array.from({ length: 10 }, (_, i) => makeEvent('test.relayed', 'CMS-00000001', { round, i }));
      ids.push(...events.map((e) => e.id));
      // Each "process" commits and wakes its relay, as a subgraph does after a change.
      await record(round % 2 === 0 ? a : b, events);
      relays.forEach((r) => r.wake());
    }
    await eventually(async () => expect(await unpublished(a)).toBe(0));
    await Promise.all(relays.map((r) => r.stop()));
    expect(failures).toEqual([]);
    expect(handed.size).toBe(ids.length);
    expect([...handed.values()].filter((n) => n !== 1)).toEqual([]);
  });

  it('takes the claim from a relay that stalls holding it (after the lease), relays its rows, and the stream counts them as relayed again, not appended twice', async () => {
    const [a, b] = [await pool(), await pool()];
    const stream = new RedisEventStream(TEST_REDIS_URL, `t${randomBytes(4).toString('hex')}`, logger);
    const metrics = createMetrics();
    let appendedByA = false;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Relay A appends to Redis, then stalls before marking the rows published (a frozen process).
    const stalling: StreamAppender = {
      append: async (events, source, markPublished) => {
        const repeated = await stream.append(events, source);
        appendedByA = true;
        await released;
        await markPublished?.(new Date());
        return repeated;
      },
    };
    const failuresOfA: unknown[] = [];
    const relayA = new OutboxRelay(a, 'src', stalling, 60_000, (err) => void failuresOfA.push(err), { leaseMs: 500 });
    const relayB = new OutboxRelay(b, 'src', stream, 60_000, (err) => {
      throw err;
    }, { metrics });
    const events = Array.from({ length: 3 }, (_, i) => makeEvent('test.relayed', 'CMS-00000001', { i }));
    await record(a, events);
    const stalled = relayA.flush();
    await eventually(async () => expect(appendedByA).toBe(true));

    // B waits for the claim; PostgreSQL ends A's session after the lease, and B relays the rows.
    await relayB.flush();
    expect(await unpublished(b)).toBe(0);
    const counted = async (name: string) => (await metrics.registry.getSingleMetric(name)!.get()).values.find((v) => v.labels['owner'] === 'src')?.value ?? 0;
    expect(await counted('svc_outbox_events_relayed_total')).toBe(3);
    expect(await counted('svc_outbox_events_relayed_again_total')).toBe(3);
    // The stream holds each event once.
    const after = await stream.readAfter('000000000000000-0000000000', { partnerGpid: null, types: null });
    expect(after.events.map((e) => e.event.id)).toEqual(events.map((e) => e.id));

    // A wakes up: its claim is gone, so it cannot mark anything, and says so.
    release();
    await stalled;
    expect(failuresOfA).toHaveLength(1);
    await stream.close();
  });
});
