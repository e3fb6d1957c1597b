import { LatchkeyError } from "../domain/errors.js";
import type { Plan } from "../domain/plan.js";
import type { PlanChanges, PlanStore, StoredPlan } from "../store/plan-store.js";

/** Plan values an organization gets where the operator set none. */
export interface PlanDefaults {
  /** LATCHKEY_DEFAULT_IMAGE_CREDITS (50 unless configured). */
  imageCredits: number;
}

/** Fills the stored plan's unset members with the defaults (DESIGN.md section 10). */
export function resolvePlan(stored: StoredPlan, defaults: PlanDefaults): Plan {
  return {
    imageCredits: stored.imageCredits ?? defaults.imageCredits,
    overages: stored.overages ?? false,
    periodAnchor: stored.periodAnchor ?? stored.organizationCreatedAt,
    maxBatchSize: stored.maxBatchSize ?? 0,
    proxies: stored.proxies ?? true,
    storageDestinations: stored.storageDestinations ?? true,
  };
}

/** Reads and changes organizations' plans. */
export interface PlanService {
  /** The organization's effective plan; throws not_found for an unknown organization. */
  get(orgId: string): Promise<Plan>;
  /** Applies the changes and returns the resulting plan. */
  change(orgId: string, changes: PlanChanges): Promise<Plan>;
}

export function createPlanService(store: PlanStore, defaults: PlanDefaults): PlanService {
  async function get(orgId: string): Promise<Plan> {
    const stored = await store.getPlan(orgId);
    if (!stored) throw new LatchkeyError("not_found", `No organization ${orgId}.`);
    return resolvePlan(stored, defaults);
  }
  return {
    get,
    async change(orgId, changes) {
      await get(orgId);
      await store.setPlan(orgId, changes);
      return get(orgId);
    },
  };
}
