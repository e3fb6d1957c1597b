/** A cached value and the record version it was read at. */
export interface VersionedEntry<V> {
  value: V;
  /** The organization's record version observed before the value was read (src/cache/record-versions.ts). */
  version: number;
}

/**
 * Values tagged with the record version they were read at. The cache itself decides nothing about
 * freshness: its users serve an entry only once the version is confirmed current. It only bounds what
 * it holds (capacity, oldest first) and for how long (`maxAgeMs`: fields that change without moving
 * the version, a key's `last_used_at`, are then read again).
 */
export interface VersionedCache<V> {
  /** The entry of `key`, unless it is older than the maximum age. */
  get(key: string): VersionedEntry<V> | undefined;
  /** Remembers a value that exists (callers never store "not found"). */
  set(key: string, value: V, version: number): void;
  delete(key: string): void;
  clear(): void;
  /** Entries held. */
  readonly size: number;
}

export function createVersionedCache<V>(options: {
  now: () => number;
  maxAgeMs: number;
  capacity?: number;
}): VersionedCache<V> {
  const { now, maxAgeMs } = options;
  const capacity = options.capacity ?? 10_000;
  const entries = new Map<string, VersionedEntry<V> & { readAt: number }>();
  return {
    get size() {
      return entries.size;
    },
    get(key) {
      const entry = entries.get(key);
      if (entry && now() - entry.readAt >= maxAgeMs) {
        entries.delete(key);
        return undefined;
      }
      return entry;
    },
    set(key, value, version) {
      if (!entries.has(key) && entries.size >= capacity) {
        entries.delete(entries.keys().next().value as string);
      }
      entries.set(key, { value, version, readAt: now() });
    },
    delete(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
  };
}
