import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Orm } from '../db/database.js';
import { SchemaMigration } from '../db/schema-migration.js';
import { createLogger, type Logger } from '../logging.js';
import { makeEvent, type EventEnvelope } from './envelope.js';
import { MemoryEventBus } from './memory-bus.js';
import { addOutboxTraceParent, createOutboxTable, outboxEntity, outboxTable, OutboxRelay, recordEvent } from './outbox.js';
import { OUTBOX_RETENTION_MS, OutboxStream } from './outbox-stream.js';
import { freshStorage, USE_POSTGRES, type TestStorage } from '../../../test/support/databases.js';
import { consumeWanted, typedEvents, WANTED_SEEN } from '../../../test/support/stream-cases.js';

class CreateOutbox extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => createOutboxTable(s, 'src'));
    this.schema((s) => addOutboxTraceParent(s, 'src'));
  }
}

class CreateSecondOutbox extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => createOutboxTable(s, 'two'));
    this.schema((s) => addOutboxTraceParent(s, 'two'));
  }
}

function memoryLogger(): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ logLevel: 'info', role: 'all' }, destination) };
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The stream of the outbox tables themselves, a producer owner and a consumer owner: the embedded
 * default on real SQLite files, or PostgreSQL without Redis (the PostgreSQL pass of the suite).
 * SQLite consumers read rows by rowid; PostgreSQL ones read the rows the relay has published.
 */
describe(`OutboxStream (${USE_POSTGRES ? 'PostgreSQL' : 'SQLite'} outbox tables as the stream)`, () => {
  let storage: TestStorage;
  let src: Orm;
  let dst: Orm;
  const open = (owner: string) =>
    openDatabase({
      config: { dataDir: storage.env['SVC_DATA_DIR']!, databaseUrl: storage.env['SVC_DATABASE_URL'] },
      owner,
      entities: [outboxEntity(owner)],
      migrations: owner === 'src' ? [{ name: 'm1', class: CreateOutbox }] : owner === 'two' ? [{ name: 'm1', class: CreateSecondOutbox }] : [],
    });
  /** Events recorded as a subgraph records them, then published by the source's relay. */
  const publish = async (stream: OutboxStream, events: EventEnvelope[], source: { orm: Orm; owner: string } = { orm: src, owner: 'src' }): Promise<EventEnvelope[]> => {
    const em = source.orm.em.fork();
    for (const e of events) recordEvent(em, e);
    await em.flush();
    await new OutboxRelay(source.orm, source.owner, stream, 20, (err) => {
      throw err;
    }).flush();
    return events;
  };
  const produce = (stream: OutboxStream, n: number, from = 0): Promise<EventEnvelope[]> =>
    publish(stream, Array.from({ length: n }, (_, i) => makeEvent('test.produced', 'CMS-00000001', { n: from + i })));

  beforeEach(async () => {
    storage = await freshStorage();
    src = await open('src');
    dst = await open('dst');
  });
  afterEach(async () => {
    await src.close();
    await dst.close();
    await storage.dispose();
  });

  it('gives a consumer that was down everything it missed, from its stored position, once', async () => {
    const { logger } = memoryLogger();
    const stream = new OutboxStream(new MemoryEventBus(), logger, 20);
    stream.forOwner('src', src);
    const seen: number[] = [];
    const handler = (e: EventEnvelope) => void seen.push(e.data['n'] as number);
    await produce(stream, 3);
    let stop = stream.forOwner('dst', dst).consume('log', handler);
    await until(() => seen.length === 3);
    await stop();
    await produce(stream, 4, 3);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([0, 1, 2]);
    // Its lag: the rows past its stored position, and the age of the oldest.
    const lag = await stream.forOwner('dst', dst).lag('log');
    expect(lag).toMatchObject({ consumer: 'log', unacknowledged: 4 });
    expect(lag.oldestAgeMs).toBeGreaterThanOrEqual(0);
    expect(await stream.forOwner('dst', dst).lag('never-started')).toMatchObject({ unacknowledged: 7 });

    // Another stream instance (a restarted process) reads the position from the consumer's database.
    const restarted = new OutboxStream(new MemoryEventBus(), logger, 20);
    restarted.forOwner('src', src);
    stop = restarted.forOwner('dst', dst).consume('log', handler);
    await until(() => seen.length === 7);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(await restarted.forOwner('dst', dst).lag('log')).toEqual({ consumer: 'log', unacknowledged: 0, oldestAgeMs: null });
    await stop();
    await Promise.all([stream.close(), restarted.close()]);
  });

  it('retries a failing handler with backoff, keeps order, and logs the outage once', async () => {
    const { lines, logger } = memoryLogger();
    const stream = new OutboxStream(new MemoryEventBus(), logger, 20);
    stream.forOwner('src', src);
    const attempts = new Map<number, number>();
    const done: number[] = [];
    const stop = stream.forOwner('dst', dst).consume('flaky', (e) => {
      const n = e.data['n'] as number;
      attempts.set(n, (attempts.get(n) ?? 0) + 1);
      if (n === 1 && attempts.get(n)! <= 3) throw new Error('receiver down');
      done.push(n);
    });
    await produce(stream, 3);
    await until(() => done.length === 3);
    expect(done).toEqual([0, 1, 2]);
    expect(attempts.get(1)).toBe(4);
    expect(lines.filter((l) => l.includes('event consumer failing')).length).toBe(1);
    expect(lines.filter((l) => l.includes('event consumer recovered')).length).toBe(1);
    await stop();
    await stream.close();
  });

  it('hands a batch consumer consecutive events together, retries a failing batch whole, and resumes after the last batch it finished', async () => {
    const { logger } = memoryLogger();
    const stream = new OutboxStream(new MemoryEventBus(), logger, 20);
    stream.forOwner('src', src);
    const batches: number[][] = [];
    let failures = 1;
    const consumer = {
      batch: async (events: EventEnvelope[]) => {
        if (failures-- > 0) throw new Error('database down');
        batches.push(events.map((e) => e.data['n'] as number));
      },
    };
    await produce(stream, 250);
    let stop = stream.forOwner('dst', dst).consume('batched', consumer);
    await until(() => batches.flat().length === 250);
    await stop();
    // The first read failed once and was handed again whole; reads are at most 200 events.
    expect(batches.flat()).toEqual(Array.from({ length: 250 }, (_, i) => i));
    expect(batches.map((b) => b.length)).toEqual([200, 50]);

    await produce(stream, 3, 250);
    stop = stream.forOwner('dst', dst).consume('batched', consumer);
    await until(() => batches.flat().length === 253);
    await new Promise((r) => setTimeout(r, 100));
    expect(batches.at(-1)).toEqual([250, 251, 252]);
    await stop();
    await stream.close();
  });

  it('lets two consumers keep their own positions, and prunes published rows after the retention but never the newest', async () => {
    const { logger } = memoryLogger();
    const bus = new MemoryEventBus();
    const stream = new OutboxStream(bus, logger, 20);
    stream.forOwner('src', src);
    const tailed: string[] = [];
    stream.tail((e) => void tailed.push(e.id));
    const a: string[] = [];
    const b: string[] = [];
    const stopA = stream.forOwner('dst', dst).consume('a', (e) => void a.push(e.id));
    const events = await produce(stream, 5);
    await until(() => a.length === 5);
    const stopB = stream.forOwner('dst', dst).consume('b', (e) => void b.push(e.id));
    await until(() => b.length === 5);
    expect(a).toEqual(events.map((e) => e.id));
    expect(b).toEqual(a);
    expect(tailed).toEqual(a);

    const knex = (src.em.getConnection() as unknown as { getKnex(): import('@mikro-orm/knex').Knex }).getKnex();
    expect(await stream.prune(Date.now())).toBe(0);
    // SQLite keeps the newest row, so that rowids continue and stored positions stay valid;
    // PostgreSQL's positions are publication times and ids, which need no row left behind.
    expect(await stream.prune(Date.now() + OUTBOX_RETENTION_MS + 60_000)).toBe(USE_POSTGRES ? 5 : 4);
    const left = (await knex(outboxTable('src')).select('id')) as { id: string }[];
    expect(left.map((r) => r.id)).toEqual(USE_POSTGRES ? [] : [events[4]!.id]);
    const more = await produce(stream, 1, 5);
    await until(() => a.length === 6 && b.length === 6);
    expect(a[5]).toBe(more[0]!.id);
    await Promise.all([stopA(), stopB()]);
    await stream.close();
  });
  it('passes over the types a consumer does not handle and gives a retry an unchanged copy', async () => {
    const { logger } = memoryLogger();
    const stream = new OutboxStream(new MemoryEventBus(), logger, 20);
    stream.forOwner('src', src);
    await publish(stream, typedEvents());
    const { seen, stop } = consumeWanted(stream.forOwner('dst', dst));
    await until(() => seen.length === WANTED_SEEN.length);
    expect(seen).toEqual(WANTED_SEEN);
    await stop();
    expect(await stream.forOwner('dst', dst).lag('typed')).toMatchObject({ unacknowledged: 0 });
    await stream.close();
  });

  it("passes over the catalog's other types and internal ones alike, and resumes after the last row it passed over", async () => {
    const { logger } = memoryLogger();
    const stream = new OutboxStream(new MemoryEventBus(), logger, 20);
    stream.forOwner('src', src);
    const event = (type: string, n: number) => makeEvent(type, 'CMS-00000001', { n });
    const created = (from: number, count: number) => Array.from({ length: count }, (_, i) => event('fhir.resource.created', from + i));
    await publish(stream, [...created(0, 5), event('pipeline.sync.completed', 5), event('fhir.internal.other', 6), ...created(7, 3)]);
    const seen: string[] = [];
    const wanted = (type: string) => type === 'pipeline.sync.completed' || type === 'fhir.internal.wanted';
    const consume = (on: OutboxStream) => on.forOwner('dst', dst).consume('sync', (e) => void seen.push(`${e.type} ${e.data['n']}`), { types: wanted });
    let stop = consume(stream);
    await until(() => seen.length === 1);
    // Caught up past the rows after its event, which it passed over.
    let lag = await stream.forOwner('dst', dst).lag('sync');
    for (let i = 0; i < 50 && lag.unacknowledged !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      lag = await stream.forOwner('dst', dst).lag('sync');
    }
    expect(lag).toMatchObject({ unacknowledged: 0 });
    await publish(stream, [...created(10, 2), event('fhir.internal.wanted', 12), event('pipeline.sync.failed', 13), event('pipeline.sync.completed', 14), ...created(15, 2)]);
    await until(() => seen.length === 3);
    await stop();

    // A restarted process resumes after the passed-over rows: nothing again, then only what is new.
    const restarted = new OutboxStream(new MemoryEventBus(), logger, 20);
    restarted.forOwner('src', src);
    stop = consume(restarted);
    await publish(restarted, [...created(17, 2), event('pipeline.sync.completed', 19)]);
    await until(() => seen.length === 4);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual(['pipeline.sync.completed 5', 'fhir.internal.wanted 12', 'pipeline.sync.completed 14', 'pipeline.sync.completed 19']);
    await stop();
    await Promise.all([stream.close(), restarted.close()]);
  });

  it('reads back after any event exactly what its tail delivered after it, in the same order, across sources', async () => {
    const { logger } = memoryLogger();
    const two = await open('two');
    try {
      const stream = new OutboxStream(new MemoryEventBus(), logger, 20);
      stream.forOwner('src', src);
      stream.forOwner('two', two);
      const tailed: { id: string; position: string }[] = [];
      stream.tail((e, position) => void tailed.push({ id: e.id, position }));
      // Two owners' relays appending at the same time, as the subgraphs of one process do.
      const event = (type: string, partner: string, n: number) => makeEvent(type, partner, { n });
      for (let round = 0; round < 4; round++) {
        await Promise.all([
          publish(stream, [event('pipeline.sync.completed', 'CMS-00000001', round * 10), event('partner.registered', 'CMS-00000002', round * 10 + 1)]),
          publish(stream, [event('pipeline.sync.completed', 'CMS-00000002', round * 10 + 2), event('identity.match', 'CMS-00000001', round * 10 + 3)], { orm: two, owner: 'two' }),
        ]);
      }
      expect(tailed).toHaveLength(16);
      expect([...tailed].sort((a, b) => (a.position < b.position ? -1 : 1))).toEqual(tailed);

      const everything = { partnerGpid: null, types: null };
      const readAll = async (from: string, filter: { partnerGpid: string | null; types: ReadonlySet<string> | null }, count = 3) => {
        const read: { id: string; position: string }[] = [];
        for (let next: string | null = from; next !== null; ) {
          const page = await stream.readAfter(next, filter, count);
          read.push(...page.events.map((e) => ({ id: e.event.id, position: e.position })));
          next = page.next;
        }
        return read;
      };
      expect(await readAll('000000000000000|', everything)).toEqual(tailed);
      for (const k of [0, 5, 15]) {
        const anchor = await stream.locate(tailed[k]!.id);
        expect(anchor?.position).toBe(tailed[k]!.position);
        expect(await readAll(anchor!.position, everything)).toEqual(tailed.slice(k + 1));
      }
      // Filtered by partner and type, in the same order.
      const filtered = await readAll('000000000000000|', { partnerGpid: 'CMS-00000002', types: new Set(['pipeline.sync.completed']) }, 2);
      const located = await Promise.all(filtered.map((f) => stream.locate(f.id)));
      expect(located.map((l) => [l!.event.type, l!.event.partner_gpid])).toEqual(Array.from({ length: 4 }, () => ['pipeline.sync.completed', 'CMS-00000002']));
      expect(filtered).toEqual(tailed.filter((t) => filtered.some((f) => f.id === t.id)));
      expect(await stream.locate('evt_01jzzzzzzzzzzzzzzzzzzzzzzz')).toBeNull();
      await stream.close();
    } finally {
      await two.close();
    }
  });
});
