import DataLoader from 'dataloader';

/** Reads the values of some keys; a key with no value is absent from the answer. */
export type ReadMany<V> = (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>;

/**
 * Point reads shared by concurrent requests: the keys that any number of callers ask for during
 * one turn of the event loop are read in ONE batch (each key once, at most `maxBatch` per batch),
 * and each caller gets its own keys' values. A request's DataLoader batches within the request;
 * this batches across requests, the way Prisma batches the `findUnique` calls of one tick. Under
 * load, N concurrent lookups by key cost one statement and one round trip instead of N.
 *
 * The batch runs in the check phase right after the I/O that issued its reads, so a caller waits
 * no longer than the other requests that turn already had work for, and a read issued after a
 * committed write still reads after it. Only for reads outside a transaction: the batch runs on
 * whatever connection `read` takes. Values are shared by the callers of one batch: read-only.
 */
export function coalescedReads<V>(read: ReadMany<V>, maxBatch = 500): (keys: readonly string[]) => Promise<Map<string, V>> {
  const loader = new DataLoader<string, V | null>(
    async (keys) => {
      const found = await read([...new Set(keys)]);
      return keys.map((key) => found.get(key) ?? null);
    },
    { cache: false, maxBatchSize: maxBatch, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );
  return async (keys) => {
    const values = await loader.loadMany(keys);
    const out = new Map<string, V>();
    values.forEach((value, i) => {
      if (value instanceof Error) throw value;
      if (value !== null) out.set(keys[i]!, value);
    });
    return out;
  };
}
