import type { Freshness } from "./freshness.js";

interface Entry<V> {
  generation: number;
  value: V;
}

/** A read-through cache that never serves a value read before the last change (see Freshness). */
export interface ExactCache<V> {
  /** The cached value of `key` if it is still current, else `load()`'s, remembered when found. */
  get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined>;
  /** Entries held (bounded by the capacity). */
  readonly size: number;
}

/**
 * Only values that exist are kept: a lookup that finds nothing (an unknown api_id, a wrong token) is
 * never remembered, so guessing cannot grow the cache. The generation is taken before the read, so a
 * change committed while the read is in flight makes its value stale at once. At capacity the oldest
 * entry goes.
 */
export function createExactCache<V>(freshness: Freshness, capacity = 10_000): ExactCache<V> {
  const entries = new Map<string, Entry<V>>();
  return {
    get size() {
      return entries.size;
    },
    async get(key, load) {
      const generation = freshness.generation();
      const entry = entries.get(key);
      if (entry && entry.generation === generation) return entry.value;
      const value = await load();
      if (value === undefined) {
        entries.delete(key);
        return value;
      }
      if (!entry && entries.size >= capacity) entries.delete(entries.keys().next().value as string);
      entries.set(key, { generation, value });
      return value;
    },
  };
}
