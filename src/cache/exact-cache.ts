import type { Freshness } from "./freshness.js";

interface Entry<V> {
  generation: number;
  value: V;
}

/** A read-through cache that never serves a value read before the last change (see Freshness). */
export interface ExactCache<V> {
  /** The cached value of `key` if it is still current, else `load()`'s, remembered when found. */
  get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined>;
  /**
   * Replaces the value held under `key`, if any, keeping the generation it was read in: for a change
   * this process has just written and that no other cached record depends on (a key's last use).
   */
  patch(key: string, change: (value: V) => V): void;
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
    patch(key, change) {
      const entry = entries.get(key);
      if (entry) entries.set(key, { generation: entry.generation, value: change(entry.value) });
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
