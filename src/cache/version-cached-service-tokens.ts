import type { RedisClient } from "../redis/connection.js";
import type { ServiceTokenRecord, ServiceTokenStore } from "../store/service-token-store.js";
import { frozen } from "./exact-cache.js";
import { readRecordVersion, type RecordVersionKeys } from "./redis-record-versions.js";
import { createVersionedCache } from "./versioned-cache.js";
import type { CacheReadOutcome } from "./version-cached-keys.js";
import { withinWait } from "./within-wait.js";

export interface VersionCachedServiceTokensOptions {
  /** The store whose revocations move the version (withVersionedServiceTokenWrites). */
  store: ServiceTokenStore;
  redis: () => Promise<RedisClient>;
  /** The service tokens' version (serviceTokenRecordVersionKeys). */
  keys: RecordVersionKeys;
  /** Whether versions can be confirmed now (the limiter is on Redis, not its fallback). */
  usable: () => boolean;
  now: () => number;
  /** The longest Redis' version is waited for before a token is read (then it is read, not cached). */
  waitMs: number;
  /** Told of every cache read, for the metrics (`latchkey_record_cache_reads_total`). */
  onRead?: (outcome: CacheReadOutcome) => void;
}

/** A service token cached at the version it was read at, for the decision's Redis call to confirm. */
export interface ServiceTokenCache {
  /** The valid token of `hash`, if held and versions can be confirmed now; never trust it unconfirmed. */
  peek(hash: string): { record: ServiceTokenRecord; version: number } | undefined;
  /**
   * Reads the token of `hash` from the database, and caches it (valid tokens only) at the version
   * observed, with no revocation in progress, just before the read.
   */
  read(hash: string): Promise<ServiceTokenRecord | undefined>;
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

  /** The version now, with no revocation in progress; undefined when Redis cannot say in time. */
  async function versionNow(): Promise<number | undefined> {
    if (!usable()) return undefined;
    const read = (async () => {
      const seen = await readRecordVersion(await options.redis(), keys);
      return seen.writing ? undefined : seen.version;
    })().catch(() => undefined);
    return withinWait(read, options.waitMs, undefined);
  }

  return {
    keys,
    get size() {
      return cache.size;
    },
    clear: () => cache.clear(),
    peek(hash) {
      const entry = usable() ? cache.get(hash) : undefined;
      options.onRead?.(entry ? "hit" : "miss");
      return entry && { record: entry.value, version: entry.version };
    },
    async read(hash) {
      const version = await versionNow();
      const record = frozen(await store.findServiceTokenByHash(hash));
      if (!record || record.revokedAt !== null) cache.delete(hash);
      else if (version !== undefined) cache.set(hash, record, version);
      return record;
    },
  };
}
