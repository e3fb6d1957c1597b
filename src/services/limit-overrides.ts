import type { Clock } from "../domain/clock.js";
import { invalidRequest, LatchkeyError } from "../domain/errors.js";
import type { CountedPer, GroupLimit, RatePolicy } from "../domain/rate-limit-policies.js";
import { policiesProblem } from "../domain/rate-limit-policies.js";
import { DEFAULT_MAX_KEYS } from "../domain/key-configuration.js";
import { isRateLimitGroup } from "../domain/rate-limit-groups.js";
import type { KeyStore } from "../store/key-store.js";
import { changeOrganizationLimits } from "./organization-limits.js";
import type { GroupCatalog } from "./rate-limit-groups.js";

/** One group's limit for one organization, and where it comes from. */
export interface EffectiveLimit {
  policies: readonly RatePolicy[];
  per: CountedPer;
  /** `override`: this organization's; `default`: the group's own. */
  source: "default" | "override";
}

/** An organization's limits per group, and its overrides (`/v1/admin/organizations/{org}/limits`). */
export interface LimitOverrides {
  /** Every known group's limit for the organization, and its key quota. */
  effective(orgId: string): Promise<{ groups: Record<string, EffectiveLimit>; maxKeys: number }>;
  /** Overrides one group for the organization (a known group; audited as `actor`). */
  set(orgId: string, group: string, limit: GroupLimit, actor: string): Promise<EffectiveLimit>;
  /** Removes the override: the group's own limit applies again. */
  remove(orgId: string, group: string, actor: string): Promise<void>;
}

export function createLimitOverrides(deps: {
  keys: KeyStore;
  groups: GroupCatalog;
  clock: Clock;
  windowSeconds: number;
}): LimitOverrides {
  const { keys, groups, clock, windowSeconds } = deps;
  const notFound = (orgId: string) => new LatchkeyError("not_found", `No organization ${orgId}.`);

  return {
    async effective(orgId) {
      if (!(await keys.findOrganization(orgId))) throw notFound(orgId);
      const [own, limits] = await Promise.all([groups.all(), keys.getLimits(orgId)]);
      const answer: Record<string, EffectiveLimit> = {};
      for (const [group, limit] of Object.entries(own)) {
        const quota = isRateLimitGroup(group) ? limits.quotas[group] : undefined;
        // A quota set with `org limits --quota`: one window of the deployment's length.
        const override =
          limits.overrides?.[group] ??
          (quota === undefined ? undefined : { quota, policies: null, per: null });
        answer[group] = override
          ? {
              policies: override.policies ?? [{ quota: override.quota, windowSeconds }],
              per: override.per ?? limit.per,
              source: "override",
            }
          : { policies: limit.policies, per: limit.per, source: "default" };
      }
      return { groups: answer, maxKeys: limits.maxKeys ?? DEFAULT_MAX_KEYS };
    },

    async set(orgId, group, limit, actor) {
      await groups.assertKnown(group, "/group");
      const problem = policiesProblem(limit.policies);
      if (problem) throw invalidRequest(`Invalid limit: policies ${problem}.`, "/policies");
      await changeOrganizationLimits(
        { store: keys, clock },
        orgId,
        { groupLimits: { [group]: limit } },
        actor,
      );
      return { policies: limit.policies, per: limit.per, source: "override" };
    },

    async remove(orgId, group, actor) {
      await groups.assertKnown(group, "/group");
      await changeOrganizationLimits(
        { store: keys, clock },
        orgId,
        { groupLimits: { [group]: null } },
        actor,
      );
    },
  };
}
