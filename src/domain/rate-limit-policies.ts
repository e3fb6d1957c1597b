/**
 * The shape of a rate limit (docs/rate-limits.md): a group's limit is a list of policies, each an exact
 * sliding window, counted per organization or per key. The bounds are checked by the wire schemas
 * (src/http/limit-schemas.ts) and again here for callers that do not pass through them (the
 * `LATCHKEY_GROUPS` file, the CLI).
 */

/** Shortest window. */
export const MIN_WINDOW_SECONDS = 1;
/** Longest window: 31 days. */
export const MAX_WINDOW_SECONDS = 31 * 24 * 60 * 60;
/** Most windows one group may stack. */
export const MAX_POLICIES = 5;
/** Largest quota of one window. */
export const MAX_QUOTA = 1_000_000_000;
/** Most slots one request may take in each window of its group (`cost`). */
export const MAX_COST = 1000;

/** One window: at most `quota` requests (or cost units) in any `windowSeconds`. */
export interface RatePolicy {
  /** Admissions (slots) per window. */
  quota: number;
  /** The window's length in seconds. */
  windowSeconds: number;
}

/** Whose requests one log counts. */
export type CountedPer = "organization" | "key";

export const COUNTED_PER: readonly CountedPer[] = ["organization", "key"];

/** A group's limit: every policy must fit for a request to be admitted. */
export interface GroupLimit {
  /** One to five windows, ordered by length. */
  policies: readonly RatePolicy[];
  /** Each organization has one log per window, or each key its own. */
  per: CountedPer;
}

/** What is wrong with a list of policies, for a person to read; undefined when nothing is. */
export function policiesProblem(policies: readonly RatePolicy[]): string | undefined {
  if (policies.length === 0) return "must list at least one policy";
  if (policies.length > MAX_POLICIES) return `must list at most ${MAX_POLICIES} policies`;
  for (const { quota, windowSeconds } of policies) {
    if (!Number.isInteger(quota) || quota < 1 || quota > MAX_QUOTA)
      return `each quota must be a whole number from 1 to ${MAX_QUOTA}`;
    if (
      !Number.isInteger(windowSeconds) ||
      windowSeconds < MIN_WINDOW_SECONDS ||
      windowSeconds > MAX_WINDOW_SECONDS
    )
      return `each window_seconds must be a whole number from ${MIN_WINDOW_SECONDS} to ${MAX_WINDOW_SECONDS} (31 days)`;
  }
  if (new Set(policies.map((policy) => policy.windowSeconds)).size !== policies.length)
    return "two policies must not have the same window_seconds";
  return undefined;
}

/** The policies shortest window first: the order headers list them in. */
export function sortedPolicies(policies: readonly RatePolicy[]): RatePolicy[] {
  return [...policies].sort((a, b) => a.windowSeconds - b.windowSeconds);
}

/** The wire form of policies (`window_seconds`). */
export function policiesToJson(policies: readonly RatePolicy[]): { quota: number; window_seconds: number }[] {
  return policies.map((policy) => ({ quota: policy.quota, window_seconds: policy.windowSeconds }));
}

/** Policies from their wire (or stored JSON) form. */
export function policiesFromJson(json: readonly { quota: number; window_seconds: number }[]): RatePolicy[] {
  return json.map((policy) => ({ quota: policy.quota, windowSeconds: policy.window_seconds }));
}

/** A key's own limits (`rate_limits`): group name -> its windows, for groups counted per key. */
export type KeyRateLimits = Readonly<Record<string, readonly RatePolicy[]>>;

/**
 * The most `policies` can admit in any interval of `seconds`: a window at least that long caps it at
 * its quota; a shorter one at its quota per each of the ceil(seconds / window) windows covering it.
 */
function mostAdmittedIn(policies: readonly RatePolicy[], seconds: number): number {
  let most = Number.POSITIVE_INFINITY;
  for (const { quota, windowSeconds } of policies) {
    const cap = windowSeconds >= seconds ? quota : quota * Math.ceil(seconds / windowSeconds);
    if (cap < most) most = cap;
  }
  return most;
}

/**
 * Why a key's own policies are not "at most the organization's" (docs/rate-limits.md), or undefined:
 * in each of the organization's windows, the key's windows must admit no more than its quota.
 */
export function keyPolicyProblem(
  key: readonly RatePolicy[],
  organization: readonly RatePolicy[],
): string | undefined {
  for (const { quota, windowSeconds } of organization) {
    const most = mostAdmittedIn(key, windowSeconds);
    if (most > quota) {
      return (
        `would admit up to ${most} requests in ${windowSeconds} seconds, above the organization's ` +
        `${quota}: add a window of ${windowSeconds} seconds with a quota of at most ${quota}, or lower the others`
      );
    }
  }
  return undefined;
}
