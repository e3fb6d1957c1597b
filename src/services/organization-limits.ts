import { OPERATOR_ACTOR } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { LatchkeyError } from "../domain/errors.js";
import type { KeyStore, LimitChanges, OrganizationLimits } from "../store/key-store.js";
import { limitsSnapshot } from "./audit-snapshots.js";
import { auditOf } from "./audit-trail.js";

/**
 * Changes an organization's overrides (the operator's `org limits`), recorded in the audit trail in the
 * same transaction, and returns the resulting overrides. Throws not_found for an unknown organization.
 */
export async function changeOrganizationLimits(
  deps: { store: KeyStore; clock: Clock },
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
