import type { RedisClient } from "../redis/connection.js";
import type { ServiceTokenRecord, ServiceTokenStore } from "../store/service-token-store.js";
import { frozen } from "./exact-cache.js";
import { readRecordVersion, type RecordVersionKeys } from "./redis-record-versions.js";
import { createVersionedCache } from "./versioned-cache.js";
import type { CacheReadOutcome } from "./version-cached-keys.js";

export interface VersionCachedServiceTokensOptions {
  /** The store whose revocations move the version (withVersionedServiceTokenWrites). */
  store: ServiceTokenStore;
  redis: () => Promise<RedisClient>;
  /** The service tokens' version (serviceTokenRecordVersionKeys). */
  keys: RecordVersionKeys;
  /** Whether versions can be confirmed now (the limiter is on Redis, not its fallback). */
  usable: () => boolean;
  now: () => number;
  /** Told of every cache read, for the metrics (`latchkey_record_cache_reads_total`). */
  onRead?: (outcome: CacheReadOutcome) => void;
}

/** A service token cached at the version it was read at, for the decision's Redis call to confirm. */
export interface ServiceTokenCache {
  /** The valid token of `hash`, if held and versions can be confirmed now; never trust it unconfirmed. */
  peek(hash: string): { record: ServiceTokenRecord; version: number } | undefined;
  /**
   * Reads the token of `hash` from the database, and caches it (valid tokens only) at the version
   * last observed, with no revocation in progress, before the read began; without one, observes the
   * version (not waited for) so that the next read is cached.
   */
  read(hash: string): Promise<ServiceTokenRecord | undefined>;
  /** Drops the entry of `hash` (its version could not be confirmed). */
  forget(hash: string): void;
  /** Where the version lives, for the decision's Redis call. */
  readonly keys: RecordVersionKeys;
  clear(): void;
  readonly size: number;
}

// Tokens change only by a revocation, which moves the version; the age bound only limits how long
// one entry is trusted without being read again.
const MAX_AGE_MS = 10 * 60_000;

/**
 * The service token of every authorize and forward-auth, cached at the deployment's service-token
 * version for PostgreSQL + Redis (src/cache/README.md): a revocation moves the version before and after
 * its transaction, so a node serving a cached token learns of it in the decision's own Redis call.
 */
export function withVersionCachedServiceTokens(
  options: VersionCachedServiceTokensOptions,
): ServiceTokenCache {
  const { store, keys, usable } = options;
  const cache = createVersionedCache<ServiceTokenRecord>({
    now: options.now,
    maxAgeMs: MAX_AGE_MS,
    capacity: 1000,
  });

  // The latest version seen, and this cache's sequence number of the moment it was seen: a token read
  // from the database after that moment may be cached at it (as record-versions.ts does for keys).
  let seen: { version: number; writing: boolean; sequence: number } | undefined;
  let sequence = 0;
  /** Reads the version, not waited for: a slow Redis never holds a request that missed the cache. */
  function observe(): void {
    if (!usable()) return;
    void (async () => {
      const now = await readRecordVersion(await options.redis(), keys);
      seen = { ...now, sequence: ++sequence };
    })().catch(() => {});
  }

  return {
    keys,
    get size() {
      return cache.size;
    },
    clear() {
      cache.clear();
      seen = undefined;
    },
    forget: (hash) => cache.delete(hash),
    peek(hash) {
      const entry = usable() ? cache.get(hash) : undefined;
      options.onRead?.(entry ? "hit" : "miss");
      return entry && { record: entry.value, version: entry.version };
    },
    async read(hash) {
      const mark = ++sequence;
      const record = frozen(await store.findServiceTokenByHash(hash));
      if (!record || record.revokedAt !== null) cache.delete(hash);
      else if (seen && !seen.writing && seen.sequence < mark) cache.set(hash, record, seen.version);
      else observe();
      return record;
    },
  };
}
