/**
 * Values built once per key on first use and kept: concurrent first uses of a key share one build
 * (the promise is stored before the build starts), and a failed build is forgotten so that the
 * next use tries again. It holds at most one value per key, so bound the keys (e.g. to the
 * document names a route serves) before asking.
 */
export class SingleFlightCache<K, V> {
  private readonly entries = new Map<K, Promise<V>>();

  get(key: K, build: () => Promise<V>): Promise<V> {
    const existing = this.entries.get(key);
    if (existing) return existing;
    const building = build();
    this.entries.set(key, building);
    building.catch(() => {
      if (this.entries.get(key) === building) this.entries.delete(key);
    });
    return building;
  }

  get size(): number {
    return this.entries.size;
  }
}
