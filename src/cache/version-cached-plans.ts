import type { PlanStore, StoredPlan } from "../store/plan-store.js";
import { frozen } from "./exact-cache.js";
import type { RecordVersions } from "./record-versions.js";
import { createVersionedCache } from "./versioned-cache.js";

/**
 * An organization's plan, cached at its record version (PostgreSQL + Redis), read by every decision
 * with credits or a plan-gated permission. Served only at the version the request is about to confirm
 * (`seenVersion`, the caller's cached key's): the limiter's call, or the cache's own confirmation,
 * then proves the plan exact, and a stale version sends the whole decision back to the database.
 * A plan change moves the version (redis-record-versions.ts, `withVersionedPlanWrites`).
 */
export function withVersionCachedPlans(
  plans: PlanStore,
  options: { versions: RecordVersions; usable: () => boolean; now: () => number; maxAgeMs: number },
): { plans: PlanStore; clear(): void; readonly size: number } {
  const { versions, usable } = options;
  const byOrg = createVersionedCache<StoredPlan>(options);
  return {
    get size() {
      return byOrg.size;
    },
    clear: () => byOrg.clear(),
    plans: {
      ...plans,
      async getPlan(orgId, seenVersion) {
        if (seenVersion !== undefined && usable()) {
          const entry = byOrg.get(orgId);
          if (entry && entry.version === seenVersion) return entry.value;
        }
        const mark = versions.mark();
        const plan = frozen(await plans.getPlan(orgId));
        if (!plan) {
          byOrg.delete(orgId);
          return plan;
        }
        const version = versions.versionFor(orgId, mark);
        if (version !== undefined) byOrg.set(orgId, plan, version);
        return plan;
      },
    },
  };
}
