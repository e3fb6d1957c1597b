import { invalidRequest } from "../domain/errors.js";
import { defaultQuota, isRateLimitGroup } from "../domain/rate-limit-groups.js";
import {
  type CountedPer,
  type GroupLimit,
  type KeyRateLimits,
  keyPolicyProblem,
  type RatePolicy,
} from "../domain/rate-limit-policies.js";
import { mostRestrictive, type StackedDecision, type WindowLimit } from "../domain/stacked-log.js";
import { recordVersionKeys } from "../cache/redis-record-versions.js";
import type { RecordVersions } from "../cache/record-versions.js";
import { organizationKeys } from "../redis/key-names.js";
import type { OrganizationLimits } from "../store/key-store.js";
import type { RateLimiter, RecordVersionCheck } from "./rate-limiter.js";

/** One window of a group as a decision left it, named as the headers name it. */
export interface WindowState {
  /** `"<group>"` for a group of one window, `"<group>/<window_seconds>"` for each of several. */
  name: string;
  quota: number;
  windowSeconds: number;
  /** Slots still free (after this request, when admitted). */
  remaining: number;
  /** Seconds until the window's oldest held slot frees. */
  resetSeconds: number;
}

/** A management request's rate-limit outcome, with what the headers need. */
export type ManagementDecision = {
  /** A management group or one of the platform's. */
  group: string;
  /** The most restrictive window's quota (the one that refused, on a refusal). */
  quota: number;
  /** That window's length. */
  windowSeconds: number;
  /** Every window of the group, shortest first (one for a group of one window). */
  windows: WindowState[];
  /** Whose count it was: the organization's, or the calling key's own. */
  per: CountedPer;
  /**
   * The organization's record version the limiter saw with this decision, when no write was in
   * progress (PostgreSQL + Redis with the record cache): reads later in this request may be served
   * from records cached at exactly this version.
   */
  recordVersion?: number;
} & (
  { type: "allow"; remaining: number; resetSeconds: number } | { type: "deny"; retryAfterSeconds: number }
);

/** How one request counts beyond its organization and group. */
export interface RequestCount {
  /** The calling key: counted alone in groups counted per key, under its own `rate_limits` if it has them. */
  key?: { id: string; rateLimits?: KeyRateLimits | null | undefined } | undefined;
  /** Slots the request takes in each window (1 to 1,000; default 1). */
  cost?: number | undefined;
  /**
   * A version to confirm in the same call (a cached service token's, src/cache/version-premise.ts):
   * the answer is "stale", counting nothing, unless it holds.
   */
  premise?: RecordVersionCheck["premise"];
}

/** The one entry point REST and MCP share: count a request of an organization against a group. */
export interface ManagementRateLimit {
  /** Admits or denies one request; admitted requests hold their slots for each window. */
  consume(orgId: string, group: string, count?: RequestCount): Promise<ManagementDecision>;
  /**
   * `consume` for a caller whose key came from the record cache, read at `expectedVersion`, or with a
   * premise to confirm (`count.premise`): "stale" (nothing counted) unless the version is still
   * current and the premise holds.
   */
  consumeExpecting(
    orgId: string,
    group: string,
    expectedVersion: number | undefined,
    count?: RequestCount,
  ): Promise<ManagementDecision | { type: "stale" }>;
  /**
   * The group's quota for the organization and the requests it may still make now, in its most
   * restrictive window; counts nothing.
   */
  peek(orgId: string, group: string): Promise<{ quota: number; remaining: number; windowSeconds: number }>;
}

export interface ManagementRateLimitOptions {
  limiter: RateLimiter;
  /** Reads an organization's overrides; called at most once per `overridesTtlMs` per organization. */
  loadLimits: (orgId: string) => Promise<OrganizationLimits>;
  windowSeconds: number;
  /** The platform's own groups (LATCHKEY_GROUPS, the admin API); without it only management groups. */
  groups?: { limitOf(group: string): Promise<GroupLimit | undefined> };
  /** How stale an override may be; docs/rate-limits.md promises every node sees a change within 2 seconds. */
  overridesTtlMs?: number;
  /** Namespace of limiter buckets, so two deployments can share one Redis. */
  namespace?: string;
  /** Where the record versions the limiter reports are kept (PostgreSQL + Redis record cache). */
  versions?: RecordVersions;
  now?: () => number;
}

/** Whether two lists of policies are the same windows and quotas. */
function samePolicies(a: readonly RatePolicy[], b: readonly RatePolicy[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as RatePolicy;
    const y = b[i] as RatePolicy;
    if (x.quota !== y.quota || x.windowSeconds !== y.windowSeconds) return false;
  }
  return true;
}

export function createManagementRateLimit(options: ManagementRateLimitOptions): ManagementRateLimit {
  const { limiter, loadLimits, windowSeconds } = options;
  const ttlMs = options.overridesTtlMs ?? 1000;
  const now = options.now ?? Date.now;
  const namespace = options.namespace ?? "latchkey";
  // One pending or settled read per organization: a burst of requests shares a single store query.
  const cache = new Map<string, { limits: Promise<OrganizationLimits>; loadedAt: number }>();

  function limitsOf(orgId: string): Promise<OrganizationLimits> {
    // No time-based cache at all where the store's own cache is exact (SQLite): nothing to keep.
    if (ttlMs === 0) return loadLimits(orgId);
    const cached = cache.get(orgId);
    if (cached && now() - cached.loadedAt < ttlMs) return cached.limits;
    if (cache.size > 10_000) cache.clear();
    const limits = loadLimits(orgId);
    cache.set(orgId, { limits, loadedAt: now() });
    limits.catch(() => cache.delete(orgId));
    return limits;
  }

  async function ownLimitOf(group: string): Promise<GroupLimit> {
    const own = await options.groups?.limitOf(group);
    if (!own) throw invalidRequest(`group "${group}" is not a known group.`, "/group");
    return own;
  }

  /**
   * The windows a request of `group` counts in for the organization: its override (a quota set with
   * `org limits --quota` is one window of the deployment's length), else the group's own limit (a
   * management group's default is the spec's quota per the deployment's window).
   */
  async function limitOf(orgId: string, group: string): Promise<GroupLimit> {
    const limits = await limitsOf(orgId);
    const override = limits.overrides?.[group];
    const management = isRateLimitGroup(group);
    if (override?.policies) {
      const per = override.per ?? (management ? "organization" : (await ownLimitOf(group)).per);
      return { policies: override.policies, per };
    }
    if (management) {
      return {
        policies: [{ quota: limits.quotas[group] ?? defaultQuota(group), windowSeconds }],
        per: "organization",
      };
    }
    return ownLimitOf(group);
  }

  /**
   * The policies for this request: a key's own `rate_limits` replace the organization's in a group
   * counted per key, while they stay within it (a policy lowered since is not exceeded by them).
   */
  function policiesFor(limit: GroupLimit, group: string, count: RequestCount | undefined) {
    const own = limit.per === "key" ? count?.key?.rateLimits?.[group] : undefined;
    if (own && keyPolicyProblem(own, limit.policies) === undefined) return own;
    return limit.policies;
  }

  /** The log and windows of one (organization, group, key) and the policies they were made for. */
  interface Counted {
    policies: readonly RatePolicy[];
    bucket: string;
    windows: WindowLimit[];
    names: string[];
  }
  const counted = new Map<string, Counted>();

  /**
   * One log per (organization, group, key), named by the group alone, never by a quota or a window:
   * every window counts the same admissions, so a changed policy keeps the slots already taken, and a
   * window added or lengthened sees what the log holds (on Redis, as far back as the longest window
   * before; in one process's memory, a window length new to the log starts empty). Kept while its
   * policies stay the same: the same strings each time spare building and hashing them per decision
   * (bench/stacked-windows.mjs).
   */
  function windowsOf(
    orgId: string,
    group: string,
    policies: readonly RatePolicy[],
    keyId: string | undefined,
  ): Counted {
    const id = keyId === undefined ? `${orgId}\n${group}` : `${orgId}\n${group}\n${keyId}`;
    const known = counted.get(id);
    if (known && samePolicies(known.policies, policies)) return known;
    const keys = organizationKeys(namespace, orgId);
    const several = policies.length > 1;
    const bucket = keyId === undefined ? keys.bucket(group) : keys.keyBucket(keyId, group);
    const made: Counted = { policies, bucket, windows: [], names: [] };
    for (const { quota, windowSeconds: seconds } of policies) {
      made.windows.push({ quota, windowMs: seconds * 1000 });
      made.names.push(several ? `${group}/${seconds}` : group);
    }
    if (counted.size > 10_000) counted.clear();
    counted.set(id, made);
    return made;
  }

  function managementDecision(
    decision: StackedDecision,
    group: string,
    { policies, names }: Counted,
    per: CountedPer,
    recordVersion: number | undefined,
  ): ManagementDecision {
    const windows: WindowState[] = [];
    for (let i = 0; i < policies.length; i++) {
      const policy = policies[i] as RatePolicy;
      const outcome = decision.windows[i] ?? { remaining: 0, resetMs: 0 };
      windows.push({
        name: names[i] ?? group,
        quota: policy.quota,
        windowSeconds: policy.windowSeconds,
        remaining: outcome.remaining,
        resetSeconds: Math.max(0, Math.ceil(outcome.resetMs / 1000)),
      });
    }
    // On a refusal the lowest `remaining` is a window that could not hold the request.
    const named = windows[mostRestrictive(decision.windows)] as WindowState;
    // Built field by field, not spread: this runs on every management request, and spreads cost.
    const answer: ManagementDecision =
      decision.type === "allow"
        ? {
            group,
            quota: named.quota,
            windowSeconds: named.windowSeconds,
            windows,
            per,
            type: "allow",
            remaining: named.remaining,
            resetSeconds: named.resetSeconds,
          }
        : {
            group,
            quota: named.quota,
            windowSeconds: named.windowSeconds,
            windows,
            per,
            type: "deny",
            retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)),
          };
    if (recordVersion !== undefined) answer.recordVersion = recordVersion;
    return answer;
  }

  async function consume(
    orgId: string,
    group: string,
    expected: number | undefined,
    count: RequestCount | undefined,
  ): Promise<ManagementDecision | { type: "stale" }> {
    const limit = await limitOf(orgId, group);
    const policies = policiesFor(limit, group, count);
    const keyId = limit.per === "key" ? count?.key?.id : undefined;
    const windows = windowsOf(orgId, group, policies, keyId);
    const cost = count?.cost ?? 1;
    const { versions } = options;
    const premise = count?.premise;
    const check =
      versions && limiter.consumeChecked
        ? { ...recordVersionKeys(namespace, orgId), expected, ...(premise ? { premise } : {}) }
        : undefined;
    // Nothing here could confirm it: decided nothing, so the caller reads it from the database.
    if (premise && !check) return { type: "stale" };
    const answer = await limiter.consumeWindows(windows.bucket, windows.windows, cost, check);
    const { records } = answer;
    // Stale answers too: the caller's next read of the key can then be cached at the current version.
    if (records && versions) versions.observe(orgId, records.version, records.writing);
    if (answer.type === "stale") return { type: "stale" };
    const seen = records && !records.writing ? records.version : undefined;
    return managementDecision(answer.decision, group, windows, limit.per, seen);
  }

  async function peek(orgId: string, group: string) {
    const { policies } = await limitOf(orgId, group);
    const { bucket, windows } = windowsOf(orgId, group, policies, undefined);
    const held = await Promise.all(windows.map((w) => limiter.held(bucket, w.windowMs)));
    let tightest = { quota: 0, remaining: Number.POSITIVE_INFINITY, windowSeconds: windowSeconds };
    windows.forEach((window, i) => {
      const remaining = Math.max(0, window.quota - (held[i] ?? 0));
      if (remaining < tightest.remaining)
        tightest = { quota: window.quota, remaining, windowSeconds: window.windowMs / 1000 };
    });
    return tightest;
  }

  return {
    peek,
    // Without an expected version the limiter never answers "stale".
    consume: (orgId, group, count) => consume(orgId, group, undefined, count) as Promise<ManagementDecision>,
    consumeExpecting: (orgId, group, expected, count) => consume(orgId, group, expected, count),
  };
}
