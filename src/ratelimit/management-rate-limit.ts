import { defaultQuota, type RateLimitGroup } from "../domain/rate-limit-groups.js";
import { recordVersionKeys } from "../cache/redis-record-versions.js";
import type { RecordVersions } from "../cache/record-versions.js";
import type { SlidingLogDecision } from "../domain/sliding-log.js";
import { organizationKeys } from "../redis/key-names.js";
import type { OrganizationLimits } from "../store/key-store.js";
import type { RateLimiter } from "./rate-limiter.js";

/** A management request's rate-limit outcome, with what the headers need. */
export type ManagementDecision = {
  group: RateLimitGroup;
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
  consume(orgId: string, group: RateLimitGroup): Promise<ManagementDecision>;
  /**
   * `consume` for a caller whose key came from the record cache, read at `expectedVersion`: "stale"
   * (nothing counted) unless that version is still current.
   */
  consumeExpecting(
    orgId: string,
    group: RateLimitGroup,
    expectedVersion: number,
  ): Promise<ManagementDecision | { type: "stale" }>;
  /** The group's quota for the organization and the requests it may still make now; counts nothing. */
  peek(
    orgId: string,
    group: RateLimitGroup,
  ): Promise<{ quota: number; remaining: number; windowSeconds: number }>;
}

export interface ManagementRateLimitOptions {
  limiter: RateLimiter;
  /** Reads an organization's overrides; called at most once per `overridesTtlMs` per organization. */
  loadLimits: (orgId: string) => Promise<OrganizationLimits>;
  windowSeconds: number;
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
  const windowMs = windowSeconds * 1000;
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

  function managementDecision(
    decision: SlidingLogDecision,
    group: RateLimitGroup,
    quota: number,
    recordVersion: number | undefined,
  ): ManagementDecision {
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
    group: RateLimitGroup,
    expected: number | undefined,
  ): Promise<ManagementDecision | { type: "stale" }> {
    const limits = await limitsOf(orgId);
    const quota = limits.quotas[group] ?? defaultQuota(group);
    const bucket = organizationKeys(namespace, orgId).bucket(group);
    const { versions } = options;
    if (!versions || !limiter.consumeChecked) {
      return managementDecision(await limiter.consume(bucket, quota, windowMs), group, quota, undefined);
    }
    const check = { ...recordVersionKeys(namespace, orgId), expected };
    const answer = await limiter.consumeChecked(bucket, quota, windowMs, check);
    const { records } = answer;
    // Stale answers too: the caller's next read of the key can then be cached at the current version.
    if (records) versions.observe(orgId, records.version, records.writing);
    if (answer.type === "stale") return { type: "stale" };
    const seen = records && !records.writing ? records.version : undefined;
    return managementDecision(answer.decision, group, quota, seen);
  }

  async function peek(orgId: string, group: RateLimitGroup) {
    const limits = await limitsOf(orgId);
    const quota = limits.quotas[group] ?? defaultQuota(group);
    const held = await limiter.held(organizationKeys(namespace, orgId).bucket(group), windowMs);
    return { quota, remaining: Math.max(0, quota - held), windowSeconds };
  }

  return {
    peek,
    // Without an expected version the limiter never answers "stale".
    consume: (orgId, group) => consume(orgId, group, undefined) as Promise<ManagementDecision>,
    consumeExpecting: consume,
  };
}
