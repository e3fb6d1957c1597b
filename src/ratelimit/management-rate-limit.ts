import { invalidRequest } from "../domain/errors.js";
import { defaultQuota, isRateLimitGroup } from "../domain/rate-limit-groups.js";
import type { GroupLimit, RatePolicy } from "../domain/rate-limit-policies.js";
import { recordVersionKeys } from "../cache/redis-record-versions.js";
import type { RecordVersions } from "../cache/record-versions.js";
import type { SlidingLogDecision } from "../domain/sliding-log.js";
import { organizationKeys } from "../redis/key-names.js";
import type { OrganizationLimits } from "../store/key-store.js";
import type { RateLimiter } from "./rate-limiter.js";

/** A management request's rate-limit outcome, with what the headers need. */
export type ManagementDecision = {
  /** A management group or one of the platform's. */
  group: string;
  /** Requests admitted per window for this organization and group. */
  quota: number;
  windowSeconds: number;
  /**
   * The organization's record version the limiter saw with this decision, when no write was in
   * progress (PostgreSQL + Redis with the record cache): reads later in this request may be served
   * from records cached at exactly this version.
   */
  recordVersion?: number;
} & (
  { type: "allow"; remaining: number; resetSeconds: number } | { type: "deny"; retryAfterSeconds: number }
);

/** The one entry point REST and MCP share: count a request of an organization against a group. */
export interface ManagementRateLimit {
  /** Admits or denies one request; admitted requests hold a slot for the window. */
  consume(orgId: string, group: string): Promise<ManagementDecision>;
  /**
   * `consume` for a caller whose key came from the record cache, read at `expectedVersion`: "stale"
   * (nothing counted) unless that version is still current.
   */
  consumeExpecting(
    orgId: string,
    group: string,
    expectedVersion: number,
  ): Promise<ManagementDecision | { type: "stale" }>;
  /** The group's quota for the organization and the requests it may still make now; counts nothing. */
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

  /**
   * The window a request of `group` counts in: the organization's override, else the group's own limit
   * (a management group's default is the spec's quota per the deployment's window). Stacked windows are
   * refused where they are defined (services/stacked-windows.ts), so there is one.
   */
  async function policyOf(orgId: string, group: string): Promise<RatePolicy> {
    const limits = await limitsOf(orgId);
    const override = limits.overrides?.[group];
    const stacked = override?.policies?.[0];
    if (stacked) return stacked;
    if (isRateLimitGroup(group)) return { quota: limits.quotas[group] ?? defaultQuota(group), windowSeconds };
    const own = await options.groups?.limitOf(group);
    const first = own?.policies[0];
    if (!first) throw invalidRequest(`group "${group}" is not a known group.`, "/group");
    return first;
  }

  /** The log of one organization's group and window: the same one whatever its quota becomes. */
  const bucketOf = (orgId: string, group: string, policy: RatePolicy) =>
    organizationKeys(namespace, orgId).bucket(
      policy.windowSeconds === windowSeconds ? group : `${group}/${policy.windowSeconds}`,
    );

  function managementDecision(
    decision: SlidingLogDecision,
    group: string,
    policy: RatePolicy,
    recordVersion: number | undefined,
  ): ManagementDecision {
    const { quota, windowSeconds } = policy;
    // Built field by field, not spread: this runs on every management request, and spreads cost.
    const answer: ManagementDecision =
      decision.type === "allow"
        ? {
            group,
            quota,
            windowSeconds,
            type: "allow",
            remaining: decision.remaining,
            resetSeconds: Math.max(0, Math.ceil(decision.resetMs / 1000)),
          }
        : {
            group,
            quota,
            windowSeconds,
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
  ): Promise<ManagementDecision | { type: "stale" }> {
    const policy = await policyOf(orgId, group);
    const bucket = bucketOf(orgId, group, policy);
    const { quota } = policy;
    const policyMs = policy.windowSeconds * 1000;
    const { versions } = options;
    if (!versions || !limiter.consumeChecked) {
      return managementDecision(await limiter.consume(bucket, quota, policyMs), group, policy, undefined);
    }
    const check = { ...recordVersionKeys(namespace, orgId), expected };
    const answer = await limiter.consumeChecked(bucket, quota, policyMs, check);
    const { records } = answer;
    // Stale answers too: the caller's next read of the key can then be cached at the current version.
    if (records) versions.observe(orgId, records.version, records.writing);
    if (answer.type === "stale") return { type: "stale" };
    const seen = records && !records.writing ? records.version : undefined;
    return managementDecision(answer.decision, group, policy, seen);
  }

  async function peek(orgId: string, group: string) {
    const policy = await policyOf(orgId, group);
    const held = await limiter.held(bucketOf(orgId, group, policy), policy.windowSeconds * 1000);
    return {
      quota: policy.quota,
      remaining: Math.max(0, policy.quota - held),
      windowSeconds: policy.windowSeconds,
    };
  }

  return {
    peek,
    // Without an expected version the limiter never answers "stale".
    consume: (orgId, group) => consume(orgId, group, undefined) as Promise<ManagementDecision>,
    consumeExpecting: consume,
  };
}
