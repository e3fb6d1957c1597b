import type { Redis } from "ioredis";
import { createRecordVersions, type RecordVersions } from "../cache/record-versions.js";
import { LAST_USE_INTERVAL_MS } from "../services/last-use.js";
import type { WarningLog } from "../warning-log.js";
import type { KeyStore } from "./key-store.js";
import {
  type CachedRecord,
  type CacheReadOutcome,
  type CallerCache,
  withVersionCachedKeys,
} from "./version-cached-keys.js";
import { withVersionedWrites } from "./versioned-writes.js";

/** The key store of a PostgreSQL + Redis node, and what the limiter and access decision need with it. */
export interface RecordVersionStores {
  keys: KeyStore;
  /** Filled by the limiter's replies; absent when this node caches nothing. */
  versions?: RecordVersions;
  /** The caller's key cached by api_id; absent when this node caches nothing. */
  callers?: CallerCache;
  /** Forgets every cached record and observation (the limiter returned from its fallback). */
  clear(): void;
  cacheSizes(): Record<string, number>;
}

export interface RecordVersionStoreOptions {
  /** The Redis connection, ready (VersionedWritesOptions.redis). */
  redis: () => Promise<Redis>;
  /** LATCHKEY_REDIS_PREFIX. */
  prefix: string;
  /** LATCHKEY_RECORD_CACHE: whether this node caches key records. */
  cache: boolean;
  /** Whether the limiter is on Redis now (it alone can confirm a cached record's version). */
  usable: () => boolean;
  now: () => number;
  log: WarningLog;
  /** Told of every cache read (metrics). */
  onRead?: (record: CachedRecord, outcome: CacheReadOutcome) => void;
}

/**
 * PostgreSQL + Redis: every change of a key record moves its organization's record version
 * (src/store/versioned-writes.ts), whether or not this node caches, because other nodes may; and with
 * the cache on, the key reads are cached at the version they were read at
 * (src/store/version-cached-keys.ts). The server and the CLI both build their key store here.
 */
export function withRecordVersions(keys: KeyStore, options: RecordVersionStoreOptions): RecordVersionStores {
  const writes = { redis: options.redis, prefix: options.prefix, log: options.log };
  if (!options.cache) {
    return { keys: withVersionedWrites(keys, writes), clear: () => {}, cacheSizes: () => ({}) };
  }
  const versions = createRecordVersions();
  const cached = withVersionCachedKeys(keys, {
    versions,
    usable: options.usable,
    now: options.now,
    maxAgeMs: LAST_USE_INTERVAL_MS,
    ...(options.onRead ? { onRead: options.onRead } : {}),
  });
  return {
    keys: withVersionedWrites(cached.keys, writes),
    versions,
    callers: cached.callers,
    clear: cached.clear,
    cacheSizes: cached.cacheSizes,
  };
}
