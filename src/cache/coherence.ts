import type { RedisClient } from "../redis/connection.js";
import { LAST_USE_INTERVAL_MS } from "../services/last-use.js";
import type { KeyStore } from "../store/key-store.js";
import type { Stores } from "../store/open-database.js";
import type { WarningLog } from "../warning-log.js";
import type { CallerCache } from "./caller-cache.js";
import { createRecordVersions, type RecordVersions } from "./record-versions.js";
import {
  readRecordVersions,
  recordVersionKeys,
  serviceTokenRecordVersionKeys,
  withVersionedOrganizationWrites,
  withVersionedPlanWrites,
  withVersionedServiceTokenWrites,
  withVersionedWrites,
} from "./redis-record-versions.js";
import type { ServiceTokenStore } from "../store/service-token-store.js";
import { type ServiceTokenCache, withVersionCachedServiceTokens } from "./version-cached-service-tokens.js";
import { withinWait } from "./within-wait.js";
import { withVersionCachedPlans } from "./version-cached-plans.js";
import type { PlanStore } from "../store/plan-store.js";
import type { OrganizationStore } from "../store/organization-store.js";
import { type CachedRecord, type CacheReadOutcome, withVersionCachedKeys } from "./version-cached-keys.js";

export type { CallerCache } from "./caller-cache.js";
export type { CachedPremise } from "./version-premise.js";
export type { ServiceTokenCache } from "./version-cached-service-tokens.js";

/**
 * The longest a decision of no group waits for Redis to confirm a cached caller before it reads the
 * key from the database: far above Redis' answer on a healthy node (well under a millisecond), far
 * below the limiter's deadline that a decision with a group may wait.
 */
const CONFIRM_WAIT_MS = 250;

/** How a process's key store stays exact, whichever the backend (README.md). */
export interface Coherence {
  /** The key store to use: its changes announced, its reads cached, where the backend needs either. */
  keys: KeyStore;
  /** The organization store to use: a disable or an enable announced like a key change. */
  organizations: OrganizationStore;
  /** The plan store to use: a plan change announced like a key change, plans cached at the version. */
  plans: PlanStore;
  /** The service token store to use: a revocation announced like a key change. */
  serviceTokens: ServiceTokenStore;
  /** Service tokens cached at their version, for the access decision to confirm; else absent. */
  tokens?: ServiceTokenCache;
  /** Cached callers for the access decision to confirm; absent where there is nothing to confirm. */
  callers?: CallerCache;
  /** Filled by the limiter's replies (PostgreSQL + Redis with the record cache); else absent. */
  versions?: RecordVersions;
  /** Forgets every cached record and observation (the limiter returned from its fallback). */
  clear(): void;
  /** Entries held per cache. */
  cacheSizes(): Record<string, number>;
}

export interface CoherenceOptions {
  /** The Redis connection, ready, when LATCHKEY_REDIS_URL is set (the CLI connects on its first write). */
  redis: (() => Promise<RedisClient>) | undefined;
  /** LATCHKEY_REDIS_PREFIX, the namespace of the record versions. */
  prefix: string;
  /** LATCHKEY_REDIS_REPLICAS_ACK=1: each write's first bump waits for a replica (redis-record-versions.ts). */
  replicasAck?: { deadlineMs: number };
  /** LATCHKEY_RECORD_CACHE: whether this process caches key records at record versions. */
  cache: boolean;
  /** Whether the limiter is on Redis now (it alone can confirm a cached record's version). */
  usable: () => boolean;
  now: () => number;
  /** Where a failed end-of-write mark is reported. */
  log: WarningLog;
  /** Told of every record cache read (metrics). */
  onRead?: (record: CachedRecord, outcome: CacheReadOutcome) => void;
}

/**
 * The key store of a server or a CLI command. SQLite: `stores` are already exact-cached
 * (`PRAGMA data_version`, exact-cache.ts). PostgreSQL + Redis: every change of a key record moves its
 * organization's record version (redis-record-versions.ts), whether or not this process caches,
 * because other nodes may; with the cache on, key reads are cached at the version they were read at
 * (version-cached-keys.ts). PostgreSQL without Redis: nothing is cached, nothing announced.
 */
export function keepCoherent(stores: Stores, options: CoherenceOptions): Coherence {
  const { redis } = options;
  if (!redis || stores.dialect !== "postgres") {
    return {
      keys: stores.keys,
      organizations: stores.organizations,
      plans: stores.plans,
      serviceTokens: stores.serviceTokens,
      clear: () => {},
      cacheSizes: () => stores.cacheSizes(),
    };
  }
  const writes = {
    redis,
    prefix: options.prefix,
    log: options.log,
    ...(options.replicasAck ? { replicasAck: options.replicasAck } : {}),
  };
  const organizations = withVersionedOrganizationWrites(stores.organizations, writes);
  const serviceTokens = withVersionedServiceTokenWrites(stores.serviceTokens, writes);
  if (!options.cache) {
    return {
      keys: withVersionedWrites(stores.keys, writes),
      organizations,
      plans: withVersionedPlanWrites(stores.plans, writes),
      serviceTokens,
      clear: () => {},
      cacheSizes: () => ({}),
    };
  }
  const versions = createRecordVersions();
  const cached = withVersionCachedKeys(stores.keys, {
    versions,
    async confirm(orgId, version, premise) {
      // While the limiter is on its fallback no version can be trusted (nor is one worth waiting for).
      if (!options.usable()) return false;
      const pairs = [recordVersionKeys(options.prefix, orgId), ...(premise ? [premise] : [])];
      const read = (async () => {
        const [seen, premiseSeen] = await readRecordVersions(await redis(), pairs);
        if (!seen) return false;
        versions.observe(orgId, seen.version, seen.writing);
        const premiseHolds = !premise || (premiseSeen?.version === premise.expected && !premiseSeen.writing);
        return premiseHolds && (version === undefined || (seen.version === version && !seen.writing));
      })().catch(() => false);
      // A decision of no group never waited on Redis before it had a cache to confirm: a slow Redis
      // costs it at most CONFIRM_WAIT_MS, then the key (and the token) is read from the database instead.
      return withinWait(read, CONFIRM_WAIT_MS, false);
    },
    usable: options.usable,
    now: options.now,
    maxAgeMs: LAST_USE_INTERVAL_MS,
    ...(options.onRead ? { onRead: options.onRead } : {}),
  });
  const cachedPlans = withVersionCachedPlans(stores.plans, {
    versions,
    usable: options.usable,
    now: options.now,
    maxAgeMs: LAST_USE_INTERVAL_MS,
  });
  const tokens = withVersionCachedServiceTokens({
    store: serviceTokens,
    redis,
    keys: serviceTokenRecordVersionKeys(options.prefix),
    usable: options.usable,
    now: options.now,
    ...(options.onRead
      ? { onRead: (outcome: CacheReadOutcome) => options.onRead?.("service_token", outcome) }
      : {}),
  });
  return {
    keys: withVersionedWrites(cached.keys, writes),
    organizations,
    plans: withVersionedPlanWrites(cachedPlans.plans, writes),
    serviceTokens,
    tokens,
    versions,
    callers: cached.callers,
    clear: () => {
      cached.clear();
      cachedPlans.clear();
      tokens.clear();
    },
    cacheSizes: () => ({ ...cached.cacheSizes(), plans: cachedPlans.size, serviceTokens: tokens.size }),
  };
}
