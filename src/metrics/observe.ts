import type { ManagementRateLimit } from "../ratelimit/management-rate-limit.js";
import type { AccessControl, AccessDecision } from "../services/access-decision.js";
import type { LatchkeyMetrics } from "./metrics.js";

/** Where an access decision was asked for: one label value per adapter. */
export type AccessSurface = "rest" | "authorize" | "forward_auth" | "mcp";

/**
 * The one access decision, counted: the rules stay in `createAccessControl`, this only reads its
 * answer. The composition root wraps it once per adapter, so each surface gets its own label.
 */
export function observeAccess(
  access: AccessControl,
  metrics: LatchkeyMetrics | null,
  surface: AccessSurface,
): AccessControl {
  if (!metrics) return access;
  const count = (decision: AccessDecision): AccessDecision => {
    metrics.accessDecisions.inc({ surface, outcome: decision.allowed ? "allowed" : decision.error.code });
    const consumed = decision.credits?.consumed ?? 0;
    if (consumed > 0) metrics.creditsConsumed.inc(consumed);
    return decision;
  };
  return {
    authenticate: (authorization) => access.authenticate(authorization),
    decide: async (request) => count(await access.decide(request)),
    decideFor: async (caller, request) => count(await access.decideFor(caller, request)),
  };
}

/** The one `consume(org, group)`, counted by group and outcome. */
export function observeRateLimit(
  rateLimit: ManagementRateLimit,
  metrics: LatchkeyMetrics | null,
): ManagementRateLimit {
  if (!metrics) return rateLimit;
  const count = (group: string, outcome: "allowed" | "limited") =>
    metrics.rateLimitDecisions.inc({ group, outcome });
  return {
    async consume(orgId, group) {
      const decision = await rateLimit.consume(orgId, group);
      count(group, decision.type === "allow" ? "allowed" : "limited");
      return decision;
    },
    async consumeExpecting(orgId, group, expectedVersion) {
      const decision = await rateLimit.consumeExpecting(orgId, group, expectedVersion);
      // A stale answer decided nothing: the request is decided (and counted) once more.
      if (decision.type !== "stale") count(group, decision.type === "allow" ? "allowed" : "limited");
      return decision;
    },
  };
}
