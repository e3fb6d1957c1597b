import { OPERATOR_ACTOR } from "../domain/audit.js";
import { type Clock, systemClock } from "../domain/clock.js";
import { LatchkeyError } from "../domain/errors.js";
import { creditThresholdsOf, DEFAULT_CREDIT_THRESHOLDS, type Plan } from "../domain/plan.js";
import type { PlanChanges, PlanStore, StoredPlan } from "../store/plan-store.js";
import { planSnapshot } from "./audit-snapshots.js";
import { auditOf } from "./audit-trail.js";

/** Plan values an organization gets where the operator set none. */
export interface PlanDefaults {
  /** LATCHKEY_DEFAULT_IMAGE_CREDITS (50 unless configured). */
  imageCredits: number;
}

/** Fills the stored plan's unset members with the defaults (docs/plans-and-usage.md). */
export function resolvePlan(stored: StoredPlan, defaults: PlanDefaults): Plan {
  return {
    imageCredits: stored.imageCredits ?? defaults.imageCredits,
    overages: stored.overages ?? false,
    periodAnchor: stored.periodAnchor ?? stored.organizationCreatedAt,
    maxBatchSize: stored.maxBatchSize ?? 0,
    proxies: stored.proxies ?? true,
    storageDestinations: stored.storageDestinations ?? true,
    creditThresholds: stored.creditThresholds ?? DEFAULT_CREDIT_THRESHOLDS,
  };
}

/** Reads and changes organizations' plans. */
export interface PlanService {
  /**
   * The organization's effective plan; throws not_found for an unknown organization. `seenVersion`:
   * the record version the caller's decision confirms (PlanStore.getPlan).
   */
  get(orgId: string, seenVersion?: number): Promise<Plan>;
  /** Applies the changes, recorded in the audit trail as made by `actor`, and returns the resulting plan. */
  change(orgId: string, changes: PlanChanges, actor?: string): Promise<Plan>;
}

function noOrganization(orgId: string): LatchkeyError {
  return new LatchkeyError("not_found", `No organization ${orgId}.`);
}

export function createPlanService(
  store: PlanStore,
  defaults: PlanDefaults,
  clock: Clock = systemClock,
): PlanService {
  async function get(orgId: string, seenVersion?: number): Promise<Plan> {
    const stored = await store.getPlan(orgId, seenVersion);
    if (!stored) throw noOrganization(orgId);
    return resolvePlan(stored, defaults);
  }
  return {
    get,
    async change(orgId, changes, actor = OPERATOR_ACTOR) {
      const audit = auditOf<StoredPlan>(clock, {
        actor,
        orgId,
        action: "plan.update",
        targetOf: () => orgId,
        snapshot: planSnapshot,
      });
      const thresholds = changes.creditThresholds;
      const checked: PlanChanges =
        thresholds === undefined || thresholds === null
          ? changes
          : { ...changes, creditThresholds: creditThresholdsOf(thresholds, "/credit_thresholds") };
      if (!(await store.setPlan(orgId, checked, audit))) throw noOrganization(orgId);
      return get(orgId);
    },
  };
}
