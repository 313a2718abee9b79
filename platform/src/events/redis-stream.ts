import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logging.js';
import { DependencyUnavailable, type DependencyHealth } from '../dependency-health.js';
import { createRedisClient } from '../redis-client.js';
import { isEventEnvelope, type EventEnvelope } from './envelope.js';
import { handleInOrder, stoppableSleep, type ConsumeOptions, type ConsumerLag, type EventBackbone, type EventStream, type StreamConsumer, type StreamHandler, type StopConsuming } from './stream.js';

/** How long the Redis stream keeps an event (XADD … MINID ~): the catch-up window of a consumer that was down. */
export const REDIS_STREAM_RETENTION_MS = 7 * 24 * 3600_000;
/** An entry delivered to a consumer that has not acknowledged it for this long is taken over (XAUTOCLAIM). */
export const REDIS_CLAIM_IDLE_MS = 15_000;
const BATCH = 100;
const BLOCK_MS = 1_000;

type Entry = [id: string, fields: string[] | null];

/**
 * An entry's event; null when it is unreadable, or when its `type` field (written beside the event
 * since entries carry one) is not one `wanted` handles.
 */
function parseEntry(fields: string[] | null, wanted?: (type: string) => boolean): EventEnvelope | null {
  if (!fields) return null;
  if (wanted) {
    const t = fields.indexOf('type');
    if (t >= 0 && t % 2 === 0 && !wanted(fields[t + 1]!)) return null;
  }
  const i = fields.indexOf('event');
  if (i < 0) return null;
  try {
    const value: unknown = JSON.parse(fields[i + 1]!);
    return isEventEnvelope(value) && (!wanted || wanted(value.type)) ? value : null;
  } catch {
    return null;
  }
}

/**
 * The distributed mode's stream: one Redis Stream (`<prefix>:events:stream`) that every owner's
 * outbox relay appends to (XADD). A durable consumer is a consumer group (XREADGROUP, XACK after
 * its handler resolved); each process running it is a member, so members share the work; entries
 * pending on a member that died are taken over with XAUTOCLAIM after {@link REDIS_CLAIM_IDLE_MS}.
 * A tail is a plain XREAD from the last id the process saw, so every process sees every event and
 * resumes where it stopped after a Redis outage. Redis must persist (AOF) for events to survive
 * its restart.
 */
export class RedisEventStream implements EventBackbone {
  private readonly key: string;
  private readonly writer: Redis;
  private readonly member = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly stops = new Set<() => Promise<void>>();
  private readonly tailHandlers = new Set<StreamHandler>();
  /** Stops the shared tail loop; set while any handler tails. */
  private tailLoop: (() => Promise<void>) | undefined;

  constructor(
    private readonly url: string,
    prefix: string,
    private readonly logger: Logger,
    private readonly health?: DependencyHealth,
    private readonly options: { retentionMs?: number; claimIdleMs?: number } = {},
  ) {
    this.key = `${prefix}:events:stream`;
    this.writer = createRedisClient(url, health, { queueWhileOffline: true, maxRetriesPerRequest: 1 });
  }

  forOwner(): EventStream & { detach(): void } {
    return { consume: (name, handler, options) => this.consume(name, handler, options), tail: (handler) => this.tail(handler), lag: (name) => this.lag(name), detach: () => undefined };
  }

  /**
   * The consumer group's `lag` (entries not yet delivered to it, XINFO GROUPS) plus its `pending`
   * (delivered, not acknowledged); the oldest age is that of the oldest pending entry or the first
   * undelivered one (a stream id starts with its append time in ms). A group that does not exist
   * yet will read the whole stream: its lag is XLEN. Rejects when Redis does not answer.
   */
  async lag(name: string): Promise<ConsumerLag> {
    const groups = ((await this.writer.call('XINFO', 'GROUPS', this.key).catch((err: unknown) => {
      if (String((err as Error).message).includes('no such key')) return [];
      throw err;
    })) ?? []) as unknown[][];
    const fieldsOf = (flat: unknown[]) => Object.fromEntries(Array.from({ length: flat.length / 2 }, (_, i) => [String(flat[2 * i]), flat[2 * i + 1]]));
    const group = groups.map(fieldsOf).find((g) => g['name'] === name);
    const ageOf = (id: unknown) => (typeof id === 'string' && id.includes('-') ? Math.max(0, Date.now() - Number(id.split('-')[0])) : null);
    if (!group) {
      const length = Number(await this.writer.xlen(this.key));
      const first = length > 0 ? ((await this.writer.xrange(this.key, '-', '+', 'COUNT', 1))[0]?.[0] ?? null) : null;
      return { consumer: name, unacknowledged: length, oldestAgeMs: ageOf(first) };
    }
    const pending = Number(group['pending'] ?? 0);
    const undelivered = group['lag'] === null || group['lag'] === undefined ? null : Number(group['lag']);
    const ages: number[] = [];
    if (pending > 0) {
      const summary = (await this.writer.call('XPENDING', this.key, name)) as [number, string | null, string | null, unknown];
      const age = ageOf(summary[1]);
      if (age !== null) ages.push(age);
    }
    if (undelivered !== 0) {
      const next = (await this.writer.xrange(this.key, `(${String(group['last-delivered-id'])}`, '+', 'COUNT', 1))[0]?.[0];
      const age = ageOf(next);
      if (age !== null) ages.push(age);
    }
    return { consumer: name, unacknowledged: undelivered === null ? null : undelivered + pending, oldestAgeMs: ages.length ? Math.max(...ages) : null };
  }

  async append(events: readonly EventEnvelope[]): Promise<void> {
    if (events.length === 0) return;
    const minId = String(Date.now() - (this.options.retentionMs ?? REDIS_STREAM_RETENTION_MS));
    const pipeline = this.writer.pipeline();
    for (const event of events) pipeline.xadd(this.key, 'MINID', '~', minId, '*', 'type', event.type, 'event', JSON.stringify(event));
    let results: [Error | null, unknown][] | null;
    try {
      results = await pipeline.exec();
    } catch (err) {
      throw new DependencyUnavailable('redis', err);
    }
    const failed = results?.find(([err]) => err !== null)?.[0];
    if (!results || failed) throw new DependencyUnavailable('redis', failed ?? new Error('XADD pipeline returned nothing'));
  }

  consume(name: string, handler: StreamConsumer, options: ConsumeOptions = {}): StopConsuming {
    // Only the writer reports to the dependency tracker: several connections reconnecting one after
    // another would log the outage as several down/up flaps. This loop logs its own outage once.
    const conn = createRedisClient(this.url, undefined, { queueWhileOffline: true, maxRetriesPerRequest: 1 });
    const { sleep, wakeAll } = stoppableSleep();
    let stopped = false;
    const state = { failing: false, stopped: () => stopped, logger: this.logger, sleep };
    let groupReady = false;
    let lastClaim = 0;
    const claimIdle = this.options.claimIdleMs ?? REDIS_CLAIM_IDLE_MS;

    const ensureGroup = async () => {
      try {
        await conn.call('XGROUP', 'CREATE', this.key, name, '0', 'MKSTREAM');
      } catch (err) {
        if (!String((err as Error).message).includes('BUSYGROUP')) throw err;
      }
      groupReady = true;
    };
    /**
     * Handle entries in order, then acknowledge those done with one XACK (a crash before it hands
     * them again; consumers are idempotent). A trimmed or unreadable entry, or one of a type the
     * consumer does not handle, is acknowledged so it does not stay pending forever. False when
     * stopped before the end.
     */
    const handle = async (entries: Entry[]): Promise<boolean> => {
      const done = await handleInOrder(name, entries, ([, fields]) => parseEntry(fields, options.types), handler, state);
      const ids = entries.slice(0, done).map(([id]) => id);
      if (ids.length > 0) await conn.xack(this.key, name, ...ids);
      return done === entries.length;
    };
    const loop = (async () => {
      let outage = false;
      while (!stopped) {
        try {
          if (!groupReady) await ensureGroup();
          if (Date.now() - lastClaim >= claimIdle / 2) {
            lastClaim = Date.now();
            const claimed = (await conn.call('XAUTOCLAIM', this.key, name, this.member, String(claimIdle), '0-0', 'COUNT', String(BATCH))) as [string, Entry[]];
            if (!(await handle(claimed[1] ?? []))) break;
          }
          const read = (await conn.call('XREADGROUP', 'GROUP', name, this.member, 'COUNT', String(BATCH), 'BLOCK', String(BLOCK_MS), 'STREAMS', this.key, '>')) as [string, Entry[]][] | null;
          if (outage) {
            outage = false;
            this.logger.info({ consumer: name }, 'event consumer reads the stream again');
          }
          if (read && !(await handle(read[0]![1]))) break;
        } catch (err) {
          if (String((err as Error).message).includes('NOGROUP')) groupReady = false;
          if (!outage) {
            outage = true;
            this.logger.warn({ err, consumer: name }, 'event consumer cannot read the stream; retrying');
          }
          await sleep(500);
        }
      }
    })();
    const stop = async () => {
      stopped = true;
      this.stops.delete(stop);
      wakeAll();
      await loop;
      conn.disconnect();
    };
    this.stops.add(stop);
    return stop;
  }

  /**
   * Every tail of this process shares one XREAD loop (one connection, one parse of each entry): the
   * process tails for its subscription hub, its revocation list and its key cache, and each of them
   * reading and parsing every event again was a few percent of the FHIR ingest's event loop. The
   * handlers get the same event object, as on the in-process bus, one after the other.
   */
  tail(handler: StreamHandler): () => void {
    this.tailHandlers.add(handler);
    this.tailLoop ??= this.startTail();
    return () => {
      this.tailHandlers.delete(handler);
      if (this.tailHandlers.size > 0 || !this.tailLoop) return;
      const stop = this.tailLoop;
      this.tailLoop = undefined;
      void stop();
    };
  }

  private startTail(): () => Promise<void> {
    // Only the writer reports to the dependency tracker: several connections reconnecting one after
    // another would log the outage as several down/up flaps. This loop logs its own outage once.
    const conn = createRedisClient(this.url, undefined, { queueWhileOffline: true, maxRetriesPerRequest: 1 });
    const { sleep, wakeAll } = stoppableSleep();
    let stopped = false;
    const loop = (async () => {
      let lastId: string | undefined;
      let outage = false;
      while (!stopped) {
        try {
          if (!lastId) {
            const [seconds, micros] = (await conn.call('TIME')) as [string, string];
            lastId = `${Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)}-0`;
          }
          const read = (await conn.call('XREAD', 'COUNT', String(BATCH * 5), 'BLOCK', String(BLOCK_MS), 'STREAMS', this.key, lastId)) as [string, Entry[]][] | null;
          if (outage) {
            outage = false;
            this.logger.info('event tail reads the stream again');
          }
          for (const [id, fields] of read?.[0]?.[1] ?? []) {
            lastId = id;
            const event = parseEntry(fields);
            if (!event) continue;
            for (const handler of [...this.tailHandlers]) {
              try {
                await handler(event);
              } catch (err) {
                this.logger.error({ err, eventId: event.id }, 'event tail handler failed');
              }
            }
          }
        } catch (err) {
          if (!outage) {
            outage = true;
            this.logger.warn({ err }, 'event tail cannot read the stream; resuming from the last event seen');
          }
          await sleep(500);
        }
      }
    })();
    const stop = async () => {
      stopped = true;
      this.stops.delete(stop);
      wakeAll();
      await loop;
      conn.disconnect();
    };
    this.stops.add(stop);
    return stop;
  }

  async close(): Promise<void> {
    await Promise.all([...this.stops].map((stop) => stop()));
    await this.writer.quit().catch(() => undefined);
  }
}
