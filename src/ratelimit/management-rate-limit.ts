import { defaultQuota, type RateLimitGroup } from "../domain/rate-limit-groups.js";
import type { OrganizationLimits } from "../store/key-store.js";
import type { RateLimiter } from "./rate-limiter.js";

/** A management request's rate-limit outcome, with what the headers need. */
export type ManagementDecision = {
  group: RateLimitGroup;
  /** Requests admitted per window for this organization and group. */
  quota: number;
  windowSeconds: number;
} & (
  { type: "allow"; remaining: number; resetSeconds: number } | { type: "deny"; retryAfterSeconds: number }
);

/** The one entry point REST and MCP share: count a request of an organization against a group. */
export interface ManagementRateLimit {
  /** Admits or denies one request; admitted requests hold a slot for the window. */
  consume(orgId: string, group: RateLimitGroup): Promise<ManagementDecision>;
}

export interface ManagementRateLimitOptions {
  limiter: RateLimiter;
  /** Reads an organization's overrides; called at most once per `overridesTtlMs` per organization. */
  loadLimits: (orgId: string) => Promise<OrganizationLimits>;
  windowSeconds: number;
  /** How stale an override may be; DESIGN.md promises every node sees a change within 2 seconds. */
  overridesTtlMs?: number;
  /** Namespace of limiter buckets, so two deployments can share one Redis. */
  namespace?: string;
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
    const cached = cache.get(orgId);
    if (cached && now() - cached.loadedAt < ttlMs) return cached.limits;
    if (cache.size > 10_000) cache.clear();
    const limits = loadLimits(orgId);
    cache.set(orgId, { limits, loadedAt: now() });
    limits.catch(() => cache.delete(orgId));
    return limits;
  }

  return {
    async consume(orgId, group) {
      const limits = await limitsOf(orgId);
      const quota = limits.quotas[group] ?? defaultQuota(group);
      const decision = await limiter.consume(`${namespace}:${orgId}:${group}`, quota, windowMs);
      const base = { group, quota, windowSeconds };
      return decision.type === "allow"
        ? {
            ...base,
            type: "allow",
            remaining: decision.remaining,
            resetSeconds: Math.max(0, Math.ceil(decision.resetMs / 1000)),
          }
        : { ...base, type: "deny", retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) };
    },
  };
}
