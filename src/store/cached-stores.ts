import { createExactCache } from "../cache/exact-cache.js";
import type { Freshness } from "../cache/freshness.js";
import type { ApiKeyRecord, KeyStore, OrganizationLimits } from "./key-store.js";
import type { PlanStore, StoredPlan } from "./plan-store.js";
import type { ServiceTokenRecord, ServiceTokenStore } from "./service-token-store.js";

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
      // The one write that does not start a new generation (sqlite-statement-cache.ts): the cached
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
