import { OPERATOR_ACTOR } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { LatchkeyError } from "../domain/errors.js";
import type { RateLimitGroup } from "../domain/rate-limit-groups.js";
import { RATE_LIMIT_GROUPS } from "../domain/rate-limit-groups.js";
import type { ManagementRateLimit } from "../ratelimit/management-rate-limit.js";
import type { LimitChanges, LimitStore, OrganizationLimits } from "../store/key-store.js";
import { limitsSnapshot } from "./audit-snapshots.js";
import { auditOf } from "./audit-trail.js";

/**
 * Changes an organization's overrides (the operator's `org limits`), recorded in the audit trail in the
 * same transaction, and returns the resulting overrides. Throws not_found for an unknown organization.
 */
export async function changeOrganizationLimits(
  deps: { store: LimitStore; clock: Clock },
  orgId: string,
  changes: LimitChanges,
  actor: string = OPERATOR_ACTOR,
): Promise<OrganizationLimits> {
  const audit = auditOf<OrganizationLimits>(deps.clock, {
    actor,
    orgId,
    action: "organization.limits.update",
    targetOf: () => orgId,
    snapshot: limitsSnapshot,
  });
  const limits = await deps.store.changeLimits(orgId, changes, audit);
  if (!limits) throw new LatchkeyError("not_found", `No organization ${orgId}.`);
  return limits;
}

/** One management group of an organization as it stands: its quota, what is left now, the window. */
export interface GroupAllowance {
  group: RateLimitGroup;
  quota: number;
  remaining: number;
  windowSeconds: number;
}

/** An organization's limits as the console shows them: the overrides, and each group's allowance now. */
export interface OrganizationLimitsView {
  read(orgId: string): Promise<{ overrides: OrganizationLimits; groups: GroupAllowance[] }>;
}

/** Reads the overrides and peeks at every group's allowance, without counting a request. */
export function createOrganizationLimitsView(deps: {
  store: Pick<LimitStore, "getLimits">;
  rateLimit: Pick<ManagementRateLimit, "peek">;
}): OrganizationLimitsView {
  return {
    async read(orgId) {
      const [overrides, groups] = await Promise.all([
        deps.store.getLimits(orgId),
        Promise.all(
          RATE_LIMIT_GROUPS.map(async (group) => ({ group, ...(await deps.rateLimit.peek(orgId, group)) })),
        ),
      ]);
      return { overrides, groups };
    },
  };
}
