import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logging.js';
import { makeEvent, type EventEnvelope } from './envelope.js';
import { RedisEventStream } from './redis-stream.js';
import { consumeWanted, typedEvents, WANTED_SEEN } from '../../../test/support/stream-cases.js';
import { PATIENCE_MS } from '../../../test/support/patience.js';

const REDIS_URL = process.env['SVC_TEST_DATABASE'] === 'postgres' ? (process.env['SVC_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379') : undefined;
const logger = createLogger({ logLevel: 'silent', role: 'all' }, new Writable({ write: (_c, _e, done) => done() }));

/** A stream on a prefix of its own, so that tests never read each other's events. */
const freshStream = () => new RedisEventStream(REDIS_URL!, `t${randomBytes(4).toString('hex')}`, logger);

/** Wait for `check`, as long as a busy machine may need (test/support/patience.ts). */
async function until(check: () => boolean, timeoutMs = PATIENCE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.runIf(REDIS_URL)('RedisEventStream (Redis Streams consumer groups)', () => {
  it('shares a group between processes, catches up a group that was down, tails in every process, and takes over what a dead member held', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}`;
    const a = new RedisEventStream(REDIS_URL!, prefix, logger, undefined, { claimIdleMs: 1000 });
    const b = new RedisEventStream(REDIS_URL!, prefix, logger, undefined, { claimIdleMs: 1000 });
    const tailA: string[] = [];
    const tailB: string[] = [];
    a.tail((e) => void tailA.push(e.id));
    b.tail((e) => void tailB.push(e.id));
    await new Promise((r) => setTimeout(r, 100));

    // Member a holds the first event without acknowledging it (as a process that hangs or died would).
    let held!: () => void;
    const logged: EventEnvelope[] = [];
    const stopA = a.consume('log', (e) => new Promise<void>((resolve) => (held = resolve)).then(() => void logged.push(e)));
    const events = Array.from({ length: 6 }, (_, i) => makeEvent('test.stream', 'CMS-00000001', { n: i }));
    await a.append(events.slice(0, 1));
    await until(() => held !== undefined);
    // Lag: the held entry is pending (delivered, not acknowledged); a group never created would read everything.
    expect(await a.lag('log')).toMatchObject({ consumer: 'log', unacknowledged: 1 });
    expect((await a.lag('log')).oldestAgeMs).toBeGreaterThanOrEqual(0);
    expect(await a.lag('nobody')).toMatchObject({ unacknowledged: 1 });

    // The other member takes the pending entry over after the idle time and reads the rest.
    const stopB = b.consume('log', (e) => void logged.push(e));
    await b.append(events.slice(1, 4));
    // A second group created later still reads from the start of the stream.
    const other: string[] = [];
    const stopOther = b.consume('other', (e) => void other.push(e.id));
    await b.append(events.slice(4));
    await until(() => new Set(logged.map((e) => e.id)).size === 6 && other.length === 6);
    expect(new Set(logged.map((e) => e.id))).toEqual(new Set(events.map((e) => e.id)));
    expect(other).toEqual(events.map((e) => e.id));
    await until(() => tailB.length === 6);
    expect(tailB).toEqual(events.map((e) => e.id));
    expect(tailA).toEqual(tailB);
    held();
    await until(() => logged.length >= 7);
    expect(await b.lag('other')).toEqual({ consumer: 'other', unacknowledged: 0, oldestAgeMs: null });
    await Promise.all([stopA(), stopB(), stopOther()]);
    await Promise.all([a.close(), b.close()]);
  }, 30_000);

  it('hands a batch consumer the events of one read together, retries the batch whole, and acknowledges them all', async () => {
    const stream = freshStream();
    const events = Array.from({ length: 30 }, (_, i) => makeEvent('test.stream', 'CMS-00000001', { n: i }));
    await stream.append(events);
    const batches: string[][] = [];
    let failures = 1;
    const stop = stream.consume('batched', {
      batch: async (got) => {
        if (failures-- > 0) throw new Error('database down');
        batches.push(got.map((e) => e.id));
      },
    });
    await until(() => batches.flat().length === 30);
    expect(batches).toEqual([events.map((e) => e.id)]);
    expect(await stream.lag('batched')).toEqual({ consumer: 'batched', unacknowledged: 0, oldestAgeMs: null });
    await stop();
    await stream.close();
  }, 30_000);
  it('passes over the types a consumer does not handle, acknowledged unread, and gives a retry an unchanged copy', async () => {
    const stream = freshStream();
    await stream.append(typedEvents());
    const { seen, stop } = consumeWanted(stream);
    await until(() => seen.length === WANTED_SEEN.length);
    expect(seen).toEqual(WANTED_SEEN);
    let lag = await stream.lag('typed');
    for (let i = 0; i < 50 && lag.unacknowledged !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      lag = await stream.lag('typed');
    }
    expect(lag).toEqual({ consumer: 'typed', unacknowledged: 0, oldestAgeMs: null });
    await stop();
    await stream.close();
  }, 30_000);
  it("shares one stream read among a process's tails: each gets every event, a tail that stops leaves the others reading", async () => {
    const stream = freshStream();
    const got: Record<'hub' | 'revocations' | 'keys', EventEnvelope[]> = { hub: [], revocations: [], keys: [] };
    const ids = (name: keyof typeof got) => got[name].map((e) => e.id);
    const stops = (Object.keys(got) as (keyof typeof got)[]).map((name) => stream.tail((e) => void got[name].push(e)));
    await new Promise((r) => setTimeout(r, 100));
    const events = Array.from({ length: 4 }, (_, i) => makeEvent('test.tail', 'CMS-00000001', { n: i }));
    await stream.append(events.slice(0, 2));
    await until(() => got.hub.length === 2 && got.revocations.length === 2 && got.keys.length === 2);
    // One read and one parse of each entry: the three tails got the very same event objects.
    expect(got.revocations[0]).toBe(got.hub[0]);
    expect(got.keys[1]).toBe(got.hub[1]);
    stops[0]!();
    await stream.append(events.slice(2));
    await until(() => got.revocations.length === 4 && got.keys.length === 4);
    expect(ids('revocations')).toEqual(events.map((e) => e.id));
    expect(ids('keys')).toEqual(ids('revocations'));
    expect(ids('hub')).toEqual(events.slice(0, 2).map((e) => e.id));
    // The last tail to stop closes the read; a new tail opens one again and reads what comes next.
    stops[1]!();
    stops[2]!();
    const later: string[] = [];
    const stopLater = stream.tail((e) => void later.push(e.id));
    // Its read starts at the server's time once connected: what is appended from then on arrives.
    for (let n = 4; later.length === 0 && n < 200; n++) {
      await stream.append([makeEvent('test.tail', 'CMS-00000001', { n })]);
      await new Promise((r) => setTimeout(r, 50));
    }
    const next = makeEvent('test.tail', 'CMS-00000001', { n: 'last' });
    await stream.append([next]);
    await until(() => later.at(-1) === next.id);
    stopLater();
    await stream.close();
  }, 30_000);

  it('appends an event once however often a relay hands it over, finds it by id, and reads back after it exactly what the tail delivered', async () => {
    const stream = freshStream();
    const tailed: { id: string; position: string }[] = [];
    const stopTail = stream.tail((e, position) => void tailed.push({ id: e.id, position }));
    // The tail starts at the server's time once connected: append first events until one arrives,
    // let the ones in flight arrive, then keep only the last as the tail's start.
    for (let i = 0; tailed.length === 0 && i < 300; i++) {
      await stream.append([makeEvent('test.first', 'CMS-00000001', {})]);
      await new Promise((r) => setTimeout(r, 100));
    }
    if (tailed.length === 0) throw new Error('the tail never started');
    for (let settled = -1; settled !== tailed.length; ) {
      settled = tailed.length;
      await new Promise((r) => setTimeout(r, 300));
    }
    tailed.splice(0, tailed.length - 1);
    const first = { id: tailed[0]!.id };
    const events = Array.from({ length: 9 }, (_, i) => makeEvent(i % 3 === 0 ? 'pipeline.sync.completed' : 'partner.registered', i % 2 === 0 ? 'CMS-00000001' : 'CMS-00000002', { n: i }));
    expect(await stream.append(events.slice(0, 5))).toBe(0);
    // A relay that died between appending and marking them published hands the same rows again:
    // the stream already holds them, says so, and does not append them twice.
    expect(await stream.append([...events.slice(3, 5), ...events.slice(5)])).toBe(2);
    await until(() => tailed.length === 10);
    expect(tailed.map((t) => t.id)).toEqual([first, ...events].map((e) => e.id));
    expect([...tailed].sort((a, b) => (a.position < b.position ? -1 : 1))).toEqual(tailed);

    const readAll = async (from: string, filter: { partnerGpid: string | null; types: ReadonlySet<string> | null }) => {
      const read: { id: string; position: string }[] = [];
      for (let next: string | null = from; next !== null; ) {
        const page = await stream.readAfter(next, filter, 3);
        read.push(...page.events.map((e) => ({ id: e.event.id, position: e.position })));
        next = page.next;
      }
      return read;
    };
    for (const k of [0, 4, 9]) {
      const anchor = await stream.locate(tailed[k]!.id);
      expect(anchor).toMatchObject({ position: tailed[k]!.position, event: { id: tailed[k]!.id } });
      expect(await readAll(anchor!.position, { partnerGpid: null, types: null })).toEqual(tailed.slice(k + 1));
    }
    const filtered = await readAll(tailed[0]!.position, { partnerGpid: 'CMS-00000001', types: new Set(['pipeline.sync.completed']) });
    expect(filtered.map((f) => f.id)).toEqual([events[0]!, events[6]!].map((e) => e.id));
    expect(await stream.locate(makeEvent('test.never', null, {}).id)).toBeNull();
    expect(await stream.locate('not-an-event-id')).toBeNull();
    stopTail();
    await stream.close();
  }, 30_000);
});
