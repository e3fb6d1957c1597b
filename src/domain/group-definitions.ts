import { isRateLimitGroup } from "./rate-limit-groups.js";
import {
  COUNTED_PER,
  type CountedPer,
  type GroupLimit,
  policiesProblem,
  sortedPolicies,
} from "./rate-limit-policies.js";
import { defaultQuota } from "./rate-limit-groups.js";

/**
 * The groups a deployment knows (docs/rate-limits.md): the specification's management groups, whose
 * defaults no one changes (an organization's override does, for that organization), and the platform's
 * own groups, declared in the `LATCHKEY_GROUPS` file or with `PUT /v1/admin/groups/{group}`.
 */

/** A platform group's name: lower-case letters, digits and `:._-`, up to 64 characters. */
export const GROUP_NAME_PATTERN = "^[a-z0-9][a-z0-9:._-]{0,63}$";
const GROUP_NAME = new RegExp(GROUP_NAME_PATTERN);

export function isGroupName(name: string): boolean {
  return GROUP_NAME.test(name);
}

/** A management group's default: its spec quota per the deployment's window, per organization. */
export function managementGroupLimit(group: string, windowSeconds: number): GroupLimit | undefined {
  if (!isRateLimitGroup(group)) return undefined;
  return { policies: [{ quota: defaultQuota(group), windowSeconds }], per: "organization" };
}

/** The problem with a platform group's declaration, if any (a person reads it). */
export function groupDeclarationProblem(name: string, limit: GroupLimit): string | undefined {
  if (!isGroupName(name)) return `group name "${name}" must match ${GROUP_NAME_PATTERN}`;
  if (isRateLimitGroup(name)) {
    return `"${name}" is a management group: its defaults are the specification's; override them per organization`;
  }
  if (!COUNTED_PER.includes(limit.per)) return `"per" must be organization or key`;
  return policiesProblem(limit.policies);
}

/** A group's limit from its wire form (`window_seconds`), policies shortest first. */
export function groupLimitFromJson(json: {
  policies: readonly { quota: number; window_seconds: number }[];
  per?: CountedPer | undefined;
}): GroupLimit {
  return {
    policies: sortedPolicies(json.policies.map((p) => ({ quota: p.quota, windowSeconds: p.window_seconds }))),
    per: json.per ?? "organization",
  };
}
