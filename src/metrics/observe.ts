import type { ManagementRateLimit } from "../ratelimit/management-rate-limit.js";
import type { AccessControl, AccessDecision } from "../services/access-decision.js";
import type { LatchkeyMetrics } from "./metrics.js";
import { perKey } from "./tallies.js";

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
  const outcomes = perKey((outcome) => metrics.accessDecisions.tally({ surface, outcome }));
  const credits = metrics.creditsConsumed.tally();
  const count = (decision: AccessDecision): AccessDecision => {
    outcomes(decision.allowed ? "allowed" : decision.error.code).inc();
    const consumed = decision.credits?.consumed ?? 0;
    if (consumed > 0) credits.inc(consumed);
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
  const groups = perKey((group) => ({
    allowed: metrics.rateLimitDecisions.tally({ group, outcome: "allowed" }),
    limited: metrics.rateLimitDecisions.tally({ group, outcome: "limited" }),
  }));
  const count = (group: string, outcome: "allowed" | "limited") => groups(group)[outcome].inc();
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

/** Counts the record cache's reads, one tally kept per (record, outcome): this runs on every read. */
export function countRecordCacheReads(metrics: LatchkeyMetrics): (record: string, outcome: string) => void {
  const records = perKey((record) =>
    perKey((outcome) => metrics.recordCacheReads.tally({ record, outcome })),
  );
  return (record, outcome) => records(record)(outcome).inc();
}
