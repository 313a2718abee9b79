import { ErrorsAreMissesCache, InMemoryLRUCache, type KeyValueCache, type KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import type { Redis } from 'ioredis';
import type { GraphQLDocumentSettings, Logger } from '@svc/platform';

type Bounds = GraphQLDocumentSettings['apq'];

/**
 * Stores one document and keeps the store within its bounds, atomically: the entry's text (a
 * string with the TTL), its last use in a sorted set and its size in a hash; then the least recently
 * used entries are removed while there are more than `maxEntries` or their texts add up to more
 * than `maxBytes`, and entries whose TTL ran out leave the index.
 * KEYS: entry key, index (sorted set), sizes (hash), total bytes. ARGV: member, text, ttl seconds,
 * now (ms), max entries, max bytes, prefix of entry keys.
 */
const SET_SCRIPT = `
local old = redis.call('HGET', KEYS[3], ARGV[1])
if old then redis.call('DECRBY', KEYS[4], old) end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], string.len(ARGV[2]))
local total = redis.call('INCRBY', KEYS[4], string.len(ARGV[2]))
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[4]) - tonumber(ARGV[3]) * 1000)
for _, member in ipairs(expired) do
  total = redis.call('DECRBY', KEYS[4], redis.call('HGET', KEYS[3], member) or 0)
  redis.call('HDEL', KEYS[3], member)
  redis.call('ZREM', KEYS[2], member)
  redis.call('DEL', ARGV[7] .. member)
end
local count = redis.call('ZCARD', KEYS[2])
while count > 0 and (count > tonumber(ARGV[5]) or total > tonumber(ARGV[6])) do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  local member = oldest[1]
  total = redis.call('DECRBY', KEYS[4], redis.call('HGET', KEYS[3], member) or 0)
  redis.call('HDEL', KEYS[3], member)
  redis.call('DEL', ARGV[7] .. member)
  count = count - 1
end
return count
`;

/**
 * Apollo Server's APQ store in Redis, shared by every gateway replica: `<prefix>:apq:doc:<key>`
 * holds a document's text for `ttlSeconds` after its last use (each hit renews it), and the whole
 * store is bounded by entry count and bytes, least recently used first (see SET_SCRIPT).
 * Apollo prefixes its keys itself (`apq:<sha256>`); ours are namespaced by SVC_REDIS_PREFIX.
 */
export class RedisPersistedQueryStore implements KeyValueCache<string> {
  private readonly entryPrefix: string;
  private readonly index: string;
  private readonly sizes: string;
  private readonly total: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly bounds: Bounds,
  ) {
    this.entryPrefix = `${prefix}:apq:doc:`;
    this.index = `${prefix}:apq:index`;
    this.sizes = `${prefix}:apq:sizes`;
    this.total = `${prefix}:apq:bytes`;
  }

  async get(key: string): Promise<string | undefined> {
    const [[getError, text] = [null, null], [touchError] = [null]] = (await this.redis
      .multi()
      .getex(this.entryPrefix + key, 'EX', this.bounds.ttlSeconds)
      .zadd(this.index, 'XX', Date.now(), key)
      .exec()) ?? [];
    if (getError) throw getError;
    if (touchError) throw touchError;
    return typeof text === 'string' ? text : undefined;
  }

  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    // A document larger than the whole store is not kept (the client keeps sending its text).
    if (Buffer.byteLength(value) > this.bounds.maxBytes) return;
    const ttl = Math.min(options?.ttl ?? this.bounds.ttlSeconds, this.bounds.ttlSeconds);
    await this.redis.eval(SET_SCRIPT, 4, this.entryPrefix + key, this.index, this.sizes, this.total, key, value, ttl, Date.now(), this.bounds.maxEntries, this.bounds.maxBytes, this.entryPrefix);
  }

  async delete(key: string): Promise<boolean> {
    const size = await this.redis.hget(this.sizes, key);
    const results = await this.redis.multi().del(this.entryPrefix + key).zrem(this.index, key).hdel(this.sizes, key).decrby(this.total, Number(size ?? 0)).exec();
    return results?.[0]?.[1] === 1;
  }
}

/**
 * The APQ store for Apollo Server's `persistedQueries.cache`: Redis when the process has it (every
 * replica shares what one registered), otherwise Apollo's own bounded in-process LRU. A Redis
 * failure is a miss (Apollo's ErrorsAreMissesCache): the client then sends the text again.
 */
export function persistedQueryStore(options: { bounds: Bounds; redis?: Redis | undefined; redisPrefix: string; logger: Logger }): KeyValueCache<string> {
  if (options.redis) return new ErrorsAreMissesCache(new RedisPersistedQueryStore(options.redis, options.redisPrefix, options.bounds), options.logger);
  return new InMemoryLRUCache<string>({
    max: options.bounds.maxEntries,
    maxSize: options.bounds.maxBytes,
    sizeCalculation: (text) => Math.max(1, Buffer.byteLength(text)),
    ttl: options.bounds.ttlSeconds * 1000,
    updateAgeOnGet: true,
  });
}
