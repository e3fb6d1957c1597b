import type { Freshness } from "./freshness.js";
import type { ApiKeyRecord, KeyStore, OrganizationLimits } from "../store/key-store.js";
import type { PlanStore, StoredPlan } from "../store/plan-store.js";
import type { ServiceTokenRecord, ServiceTokenStore } from "../store/service-token-store.js";

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

/** Shared between requests, so nobody may change one in place. */
export function frozen<T extends object>(value: T | undefined): T | undefined {
  if (value === undefined) return value;
  for (const member of Object.values(value)) {
    if (member && typeof member === "object") Object.freeze(member);
  }
  return Object.freeze(value);
}

/**
 * The stores with the reads every request makes (the caller's key, the key a read returns, the
 * organization's overrides and plan, the service token) served from exact caches: a record is reused
 * only while `freshness` says no write has happened since it was read. Everything else passes through.
 */
export function withExactCaches(
  stores: { keys: KeyStore; plans: PlanStore; serviceTokens: ServiceTokenStore },
  freshness: Freshness,
): {
  keys: KeyStore;
  plans: PlanStore;
  serviceTokens: ServiceTokenStore;
  /** Entries held per cache, for tests and metrics. */
  cacheSizes(): Record<string, number>;
} {
  const { keys, plans, serviceTokens } = stores;
  const byApiId = createExactCache<ApiKeyRecord>(freshness);
  const byId = createExactCache<ApiKeyRecord>(freshness);
  const limits = createExactCache<OrganizationLimits>(freshness);
  const storedPlans = createExactCache<StoredPlan>(freshness);
  const tokens = createExactCache<ServiceTokenRecord>(freshness);
  return {
    cacheSizes: () => ({
      keysByApiId: byApiId.size,
      keysById: byId.size,
      limits: limits.size,
      plans: storedPlans.size,
      serviceTokens: tokens.size,
    }),
    keys: {
      ...keys,
      findKeyByApiId: (apiId) => byApiId.get(apiId, async () => frozen(await keys.findKeyByApiId(apiId))),
      // An id never contains a space, so the pair cannot be confused with another pair.
      findKey: (orgId, id) => byId.get(`${orgId} ${id}`, async () => frozen(await keys.findKey(orgId, id))),
      // The one write that does not start a new generation (../store/sqlite-statement-cache.ts): the cached
      // copies of the key get the new time instead, with the same condition as the UPDATE's.
      async touchLastUsed(key, at, staleBefore) {
        await keys.touchLastUsed(key, at, staleBefore);
        const touched = (cached: ApiKeyRecord) =>
          cached.lastUsedAt === null || cached.lastUsedAt < staleBefore
            ? Object.freeze({ ...cached, lastUsedAt: at })
            : cached;
        byApiId.patch(key.apiId, touched);
        byId.patch(`${key.orgId} ${key.id}`, touched);
      },
      async getLimits(orgId) {
        const found = await limits.get(orgId, async () => frozen(await keys.getLimits(orgId)));
        return found ?? keys.getLimits(orgId);
      },
    },
    plans: {
      ...plans,
      getPlan: (orgId) => storedPlans.get(orgId, async () => frozen(await plans.getPlan(orgId))),
    },
    serviceTokens: {
      ...serviceTokens,
      findServiceTokenByHash: (hash) =>
        tokens.get(hash, async () => frozen(await serviceTokens.findServiceTokenByHash(hash))),
    },
  };
}
