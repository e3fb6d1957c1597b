import type { OrganizationLimits } from "@latchkey/client";
import { OPERATOR_ACTOR } from "../domain/audit.js";
import { systemClock } from "../domain/clock.js";
import { groupLimitFromJson } from "../domain/group-definitions.js";
import { policiesToJson } from "../domain/rate-limit-policies.js";
import { isRateLimitGroup } from "../domain/rate-limit-groups.js";
import { changeOrganizationLimits } from "../services/organization-limits.js";
import type { LimitChanges } from "../store/key-store.js";
import { type GroupChange, overrideOf } from "./org-limits-change.js";
import { withLimitServices } from "./with-limit-services.js";

/**
 * `org limits` beside the database: the same services as the provisioning API's routes (the group
 * catalog with the LATCHKEY_GROUPS file, the organization's overrides), audited as `operator`, and the
 * limits in the shape `GET /v1/admin/organizations/{org}/limits` answers, so both modes print alike.
 */
export async function limitsLocally(
  orgId: string,
  change: GroupChange | undefined,
  maxKeys: number | "default" | undefined,
): Promise<{ limits: OrganizationLimits; windowSeconds: number }> {
  return withLimitServices(async ({ stores, overrides, windowSeconds }) => {
    const read = async (): Promise<OrganizationLimits> => {
      const effective = await overrides.effective(orgId);
      const data = Object.fromEntries(
        Object.entries(effective.groups).map(([group, limit]) => [
          group,
          { policies: policiesToJson(limit.policies), per: limit.per, source: limit.source },
        ]),
      );
      return { data, max_keys: effective.maxKeys };
    };
    // Changes written as before stacked limits: a management group's quota, the key quota.
    const legacy: LimitChanges = {};
    if (change?.type === "quota" && isRateLimitGroup(change.group))
      legacy.quotas = { [change.group]: change.quota };
    if (maxKeys !== undefined) legacy.maxKeys = maxKeys === "default" ? null : maxKeys;
    if (legacy.quotas !== undefined || legacy.maxKeys !== undefined)
      await changeOrganizationLimits({ store: stores.keys, clock: systemClock }, orgId, legacy);
    if (change?.type === "remove") await overrides.remove(orgId, change.group, OPERATOR_ACTOR);
    if (change?.type === "windows") {
      const limit = groupLimitFromJson(overrideOf(change, await read()));
      await overrides.set(orgId, change.group, limit, OPERATOR_ACTOR);
    }
    // Showing writes nothing and records nothing.
    return { limits: await read(), windowSeconds };
  });
}
