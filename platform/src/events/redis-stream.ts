import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logging.js';
import { DependencyUnavailable, type DependencyHealth } from '../dependency-health.js';
import { createRedisClient } from '../redis-client.js';
import { idTimestamp, isId } from '../ids.js';
import { isEventEnvelope, type EventEnvelope } from './envelope.js';
import {
  fixedWidth,
  handleInOrder,
  RESUME_WINDOW_MS,
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

/** How long the Redis stream keeps an event (XADD … MINID ~): the catch-up window of a consumer that was down. */
export const REDIS_STREAM_RETENTION_MS = 7 * 24 * 3600_000;
/** An entry delivered to a consumer that has not acknowledged it for this long is taken over (XAUTOCLAIM). */
export const REDIS_CLAIM_IDLE_MS = 15_000;
/** Entries per consumer-group read (XREADGROUP, XAUTOCLAIM): one round trip and one acknowledgement per this many events. */
const BATCH = 500;
/** Entries per read of the tail and of `readAfter`. */
const READ_PAGE = 500;
const BLOCK_MS = 1_000;
/** The id index is kept in hourly hashes (see {@link APPEND_SCRIPT}). */
const INDEX_BUCKET_MS = 3600_000;
/** How long an hourly hash of the id index lives: the resume window and the hour it covers, plus an hour. */
const INDEX_TTL_MS = RESUME_WINDOW_MS + 2 * INDEX_BUCKET_MS;

type Entry = [id: string, fields: string[] | null];

/** The value of one field of an entry (fields alternate name, value). */
function field(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

/**
 * An entry's event; null when it is unreadable, or when its `type` field (written beside the event
 * since entries carry one) is not one `wanted` handles.
 */
function parseEntry(fields: string[] | null, wanted?: (type: string) => boolean): EventEnvelope | null {
  if (!fields) return null;
  if (wanted) {
    const type = field(fields, 'type');
    if (type !== undefined && !wanted(type)) return null;
  }
  const text = field(fields, 'event');
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    return isEventEnvelope(value) && (!wanted || wanted(value.type)) ? value : null;
  } catch {
    return null;
  }
}

/** A stream entry id (`<ms>-<seq>`) as a position: both numbers fixed-width, so text order is stream order. */
function positionOf(entryId: string): StreamPosition {
  const [ms, seq] = entryId.split('-');
  return `${fixedWidth(ms ?? '0', 15)}-${fixedWidth(seq ?? '0', 10)}`;
}

/** The entry id of a position (null when it is not one of this stream's). */
function entryIdOf(position: StreamPosition): string | null {
  const match = /^(\d{15})-(\d{10})$/.exec(position);
  return match ? `${Number(match[1])}-${Number(match[2])}` : null;
}

/**
 * Appends a relay's batch atomically with the index of the ids the stream holds.
 * KEYS: the stream, this hour's and the previous hour's hash of the index (event id → entry id).
 * ARGV: the MINID to trim to, the hashes' lifetime, then per event its id, type, partner (empty for
 * none) and JSON. An event whose id either hash knows is already in the stream (a relay died
 * between appending and marking it published): it is not appended again, and counted in the answer.
 */
const APPEND_SCRIPT = `
local repeated = 0
for i = 3, #ARGV, 4 do
  local id = ARGV[i]
  if redis.call('HEXISTS', KEYS[2], id) == 1 or redis.call('HEXISTS', KEYS[3], id) == 1 then
    repeated = repeated + 1
  else
    local entry = redis.call('XADD', KEYS[1], 'MINID', '~', ARGV[1], '*', 'type', ARGV[i + 1], 'partner', ARGV[i + 2], 'event', ARGV[i + 3])
    redis.call('HSET', KEYS[2], id, entry)
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return repeated
`;

/**
 * Reads up to ARGV[2] entries after ARGV[1] (exclusive) and answers { last entry id read, how many
 * were read, the entries that match }: of partner ARGV[3] (empty: any), of the types ARGV[4..] (none: any). The
 * filter runs in Redis, so a resume over a busy stream does not carry every entry to the gateway.
 * An entry without a partner field (appended before entries carried one) is left to the reader.
 */
const READ_SCRIPT = `
local entries = redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])
local partner = ARGV[3]
local types = nil
if #ARGV > 3 then
  types = {}
  for i = 4, #ARGV do types[ARGV[i]] = true end
end
local matched = {}
for _, entry in ipairs(entries) do
  local fields = entry[2]
  local t, p
  for j = 1, #fields, 2 do
    if fields[j] == 'type' then t = fields[j + 1] elseif fields[j] == 'partner' then p = fields[j + 1] end
  end
  if (types == nil or (t ~= nil and types[t])) and (partner == '' or p == nil or p == partner) then
    matched[#matched + 1] = entry
  end
end
local last = ''
if #entries > 0 then last = entries[#entries][1] end
return { last, #entries, matched }
`;

/** The Lua commands above, as ioredis defines them on the writer connection (EVALSHA, loaded on first use). */
interface StreamScripts {
  svcAppendEvents(stream: string, bucket: string, previousBucket: string, ...args: string[]): Promise<number>;
  svcReadEvents(stream: string, ...args: string[]): Promise<[string, number, Entry[]]>;
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
  private readonly tailHandlers = new Set<TailHandler>();
  private readonly scripts: StreamScripts;
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
    this.writer.defineCommand('svcAppendEvents', { numberOfKeys: 3, lua: APPEND_SCRIPT });
    this.writer.defineCommand('svcReadEvents', { numberOfKeys: 1, lua: READ_SCRIPT });
    this.scripts = this.writer as unknown as StreamScripts;
  }

  /** The hash of the id index for the hour of `ms`. */
  private indexKey(ms: number): string {
    return `${this.key}:ids:${Math.floor(ms / INDEX_BUCKET_MS)}`;
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

  /**
   * XADD every event (with its `type` and `partner` beside it, for readers that filter) and index
   * its id, in one script per batch; an event the index knows from this hour or the last is not
   * appended again (answered as repeated). Then `markPublished`.
   */
  async append(events: readonly EventEnvelope[], _source?: string, markPublished?: MarkPublished): Promise<number> {
    if (events.length === 0) return 0;
    const now = Date.now();
    const minId = String(now - (this.options.retentionMs ?? REDIS_STREAM_RETENTION_MS));
    const args = [minId, String(INDEX_TTL_MS)];
    for (const event of events) args.push(event.id, event.type, event.partner_gpid ?? '', JSON.stringify(event));
    let repeated: number;
    try {
      repeated = Number(await this.scripts.svcAppendEvents(this.key, this.indexKey(now), this.indexKey(now - INDEX_BUCKET_MS), ...args));
    } catch (err) {
      throw new DependencyUnavailable('redis', err);
    }
    await markPublished?.(new Date());
    return repeated;
  }

  /**
   * The entry of `eventId`, found through the hourly id index from the hour its id names on. The
   * index keeps an id for a day and two hours after its append: older events are not found.
   */
  async locate(eventId: string): Promise<PositionedEvent | null> {
    const created = idTimestamp(eventId)?.getTime();
    const now = Date.now();
    if (!isId('evt', eventId) || created === undefined) return null;
    // From the hour before its id's time (clocks differ between hosts), or the oldest hour kept, to the next hour.
    const keys: string[] = [];
    for (let at = Math.max(created - INDEX_BUCKET_MS, now - INDEX_TTL_MS); at <= now + INDEX_BUCKET_MS; at += INDEX_BUCKET_MS) keys.push(this.indexKey(at));
    const pipeline = this.writer.pipeline();
    for (const key of keys) pipeline.hget(key, eventId);
    const answers = (await pipeline.exec()) ?? [];
    const failed = answers.find(([err]) => err !== null)?.[0];
    if (failed) throw new DependencyUnavailable('redis', failed);
    const entryId = answers.map(([, value]) => value).find((value): value is string => typeof value === 'string');
    if (!entryId) return null;
    const [entry] = (await this.writer.xrange(this.key, entryId, entryId)) as Entry[];
    const event = entry ? parseEntry(entry[1]) : null;
    return event ? { event, position: positionOf(entryId) } : null;
  }

  async readAfter(position: StreamPosition, filter: ReadFilter, count = READ_PAGE): Promise<StreamPage> {
    const from = entryIdOf(position);
    if (!from) throw new Error(`Not a position of the Redis stream: ${position}`);
    let answer: [string, number, Entry[]];
    try {
      answer = await this.scripts.svcReadEvents(this.key, from, String(count), filter.partnerGpid ?? '', ...(filter.types ?? []));
    } catch (err) {
      throw new DependencyUnavailable('redis', err);
    }
    const [last, read, matched] = answer;
    const events: PositionedEvent[] = [];
    for (const [id, fields] of matched) {
      const event = parseEntry(fields);
      if (!event) continue;
      if (filter.partnerGpid !== null && event.partner_gpid !== filter.partnerGpid) continue;
      if (filter.types && !filter.types.has(event.type)) continue;
      events.push({ event, position: positionOf(id) });
    }
    // Fewer entries than asked for: the read reached the end of the stream.
    return { events, next: Number(read) < count || last === '' ? null : positionOf(last) };
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
  tail(handler: TailHandler): () => void {
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
          const read = (await conn.call('XREAD', 'COUNT', String(READ_PAGE), 'BLOCK', String(BLOCK_MS), 'STREAMS', this.key, lastId)) as [string, Entry[]][] | null;
          if (outage) {
            outage = false;
            this.logger.info('event tail reads the stream again');
          }
          for (const [id, fields] of read?.[0]?.[1] ?? []) {
            lastId = id;
            const event = parseEntry(fields);
            if (!event) continue;
            const position = positionOf(id);
            for (const handler of [...this.tailHandlers]) {
              try {
                await handler(event, position);
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
