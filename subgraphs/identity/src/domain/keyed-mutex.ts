/**
 * An in-process lock over a set of string keys. `acquire(keys)` waits until no other holder has any
 * of the keys, then holds all of them until the returned release function is called.
 *
 * Keys are taken one by one in sorted order, so two holders of overlapping sets can never wait for
 * each other in a cycle. Holders of disjoint sets run at the same time. Used to serialize resolves
 * whose blocking keys overlap: two requests for one person share keys, so they run one after the
 * other and the second sees the record the first created.
 */
export class KeyedMutex {
  /** Per key, the promise the next holder waits for (the tail of its queue). */
  private readonly tails = new Map<string, Promise<void>>();

  /** Keys currently held or waited for (for tests and metrics). */
  get size(): number {
    return this.tails.size;
  }

  async acquire(keys: Iterable<string>): Promise<() => void> {
    const sorted = [...new Set(keys)].sort();
    const releases: Array<() => void> = [];
    for (const key of sorted) releases.push(await this.acquireOne(key));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const release of releases.reverse()) release();
    };
  }

  /** Runs `work` holding `keys`. */
  async run<T>(keys: Iterable<string>, work: () => Promise<T>): Promise<T> {
    const release = await this.acquire(keys);
    try {
      return await work();
    } finally {
      release();
    }
  }

  private async acquireOne(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => held);
    this.tails.set(key, tail);
    await previous;
    return () => {
      release();
      // The last holder in line removes the key, so the map only holds contended keys.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
