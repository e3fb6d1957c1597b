import { LatchkeyError, type ValidationIssue } from "../domain/errors.js";
import {
  type CountedPer,
  type KeyRateLimits,
  keyPolicyProblem,
  policiesProblem,
  type RatePolicy,
  sortedPolicies,
} from "../domain/rate-limit-policies.js";

/** Groups one key may limit on its own. */
export const MAX_KEY_RATE_LIMITS = 20;

/** A key's `rate_limits` as sent: group -> `{"policies": [...]}`; null clears; omitted: kept. */
export interface KeyRateLimitsInput {
  rate_limits?:
    | Readonly<Record<string, { policies: readonly { quota: number; window_seconds: number }[] }>>
    | null
    | undefined;
}

/** One group's limit for an organization, as `GET .../limits` shows it. */
export type OrganizationGroupLimits = (
  orgId: string,
) => Promise<Readonly<Record<string, { policies: readonly RatePolicy[]; per: CountedPer }>>>;

/**
 * Validates a key's own `rate_limits` (docs/rate-limits.md) against its organization's limits: each
 * group must be known and counted per key, its policies valid, and at most the organization's (in
 * each of the organization's windows, the key's windows admit no more than its quota). Returns
 * undefined when omitted (an update keeps them), null to clear (`null` or `{}`), else the limits.
 * Whether the caller may touch the key at all (authority) is the key service's check, as for every
 * other member.
 */
export async function parseKeyRateLimits(
  input: KeyRateLimitsInput,
  orgId: string,
  groupLimits: OrganizationGroupLimits | undefined,
): Promise<KeyRateLimits | null | undefined> {
  const given = input.rate_limits;
  if (given === undefined) return undefined;
  if (given === null) return null;
  const entries = Object.entries(given);
  if (entries.length === 0) return null;
  const issues: ValidationIssue[] = [];
  if (entries.length > MAX_KEY_RATE_LIMITS) {
    issues.push({ path: "/rate_limits", message: `must name at most ${MAX_KEY_RATE_LIMITS} groups` });
  }
  const organization = groupLimits ? await groupLimits(orgId) : {};
  const limits: Record<string, RatePolicy[]> = {};
  for (const [group, { policies: wire }] of entries) {
    const path = `/rate_limits/${group.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    const own = organization[group];
    if (!own) {
      issues.push({ path, message: `"${group}" is not a known group` });
      continue;
    }
    if (own.per !== "key") {
      issues.push({
        path,
        message: `"${group}" is counted per organization: a key's own limits apply to groups counted per key`,
      });
      continue;
    }
    const policies = sortedPolicies(wire.map((p) => ({ quota: p.quota, windowSeconds: p.window_seconds })));
    const problem = policiesProblem(policies) ?? keyPolicyProblem(policies, own.policies);
    if (problem) {
      issues.push({ path: `${path}/policies`, message: problem });
      continue;
    }
    limits[group] = policies;
  }
  if (issues.length > 0) {
    const summary = issues.map((issue) => `${issue.path} ${issue.message}`).join("; ");
    throw new LatchkeyError("invalid_request", `Invalid rate_limits: ${summary}.`, {
      validationErrors: issues,
    });
  }
  return limits;
}
