import type { RecordVersions } from "./record-versions.js";
import { createVersionedCache } from "./versioned-cache.js";
import { frozen } from "./exact-cache.js";
import type { ApiKeyRecord, KeyStore } from "../store/key-store.js";
import type { CallerCache } from "./caller-cache.js";

export interface VersionCachedKeysOptions {
  versions: RecordVersions;
  /** Whether versions can be confirmed now (the limiter is on Redis, not its fallback). */
  usable: () => boolean;
  now: () => number;
  /**
   * Longest an entry is kept. `last_used_at` changes without moving the version (it is written about
   * once a minute per key), so a cached key shows it at most this much older than the database.
   */
  maxAgeMs: number;
  /** Reads an organization's record version in Redis (CallerCache.confirm); records what it saw. */
  confirm: CallerCache["confirm"];
  /** Told of every cache read, for the metrics (`latchkey_record_cache_reads_total`). */
  onRead?: (record: CachedRecord, outcome: CacheReadOutcome) => void;
}

/** Which cache: the caller's key by api_id, a key read back by id, or a platform's service token. */
export type CachedRecord = "caller_key" | "key_by_id" | "service_token";
/** `hit`: an entry was offered; `miss`: none (read from the database); `dropped`: found stale. */
export type CacheReadOutcome = "hit" | "miss" | "dropped";

/**
 * The key reads of every request, cached at the record version they were read at
 * (src/cache/record-versions.ts) for PostgreSQL + Redis, where no local signal says the database
 * changed. A key by `api_id` is served only through `callers` (the access decision asks the limiter
 * to confirm its version in the same call that counts the request); a key by id only at the version
 * the request itself observed. Keys that are not found are never cached.
 */
export function withVersionCachedKeys(
  keys: KeyStore,
  options: VersionCachedKeysOptions,
): { keys: KeyStore; callers: CallerCache; clear(): void; cacheSizes(): Record<string, number> } {
  const { versions, usable } = options;
  const count = options.onRead ?? (() => {});
  const cacheOptions = { now: options.now, maxAgeMs: options.maxAgeMs };
  const byApiId = createVersionedCache<ApiKeyRecord>(cacheOptions);
  const byId = createVersionedCache<ApiKeyRecord>(cacheOptions);

  return {
    cacheSizes: () => ({ keysByApiId: byApiId.size, keysById: byId.size, recordVersions: versions.size }),
    clear() {
      byApiId.clear();
      byId.clear();
      versions.clear();
    },
    callers: {
      async decide(apiId, step, fresh) {
        const entry = usable() ? byApiId.get(apiId) : undefined;
        count("caller_key", entry ? "hit" : "miss");
        if (!entry) return fresh();
        const decided = await step({ key: entry.value, version: entry.version });
        if (decided !== undefined) return decided;
        // Stale, or a refusal the stored key might not give: decide again on the database's key,
        // which its read caches anew at the version current then.
        count("caller_key", "dropped");
        byApiId.delete(apiId);
        return fresh();
      },
      confirm: options.confirm,
    },
    keys: {
      ...keys,
      async findKeyByApiId(apiId) {
        const mark = versions.mark();
        const key = frozen(await keys.findKeyByApiId(apiId));
        if (!key) {
          byApiId.delete(apiId);
          return key;
        }
        const version = versions.versionFor(key.orgId, mark);
        if (version !== undefined) byApiId.set(apiId, key, version);
        return key;
      },
      // An id never contains a space, so the pair cannot be confused with another pair.
      async findKey(orgId, id, seenVersion) {
        const cacheKey = `${orgId} ${id}`;
        if (seenVersion !== undefined && usable()) {
          const entry = byId.get(cacheKey);
          if (entry && entry.version === seenVersion) {
            count("key_by_id", "hit");
            return entry.value;
          }
        }
        count("key_by_id", "miss");
        const mark = versions.mark();
        const key = frozen(await keys.findKey(orgId, id));
        if (!key) {
          byId.delete(cacheKey);
          return key;
        }
        // The request's own observation was recorded before this read began.
        const version = seenVersion ?? versions.versionFor(orgId, mark);
        if (version !== undefined) byId.set(cacheKey, key, version);
        return key;
      },
    },
  };
}
