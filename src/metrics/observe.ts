import type { ManagementRateLimit } from "../ratelimit/management-rate-limit.js";
import type { AccessControl, AccessDecision } from "../services/access-decision.js";
import type { LatchkeyMetrics } from "./metrics.js";

/**
 * `create(key)`, made once per key and then looked up: a request finds its label set's series (a
 * prom-client child) by a string it already holds (an outcome, a group).
 */
function perKey<T>(create: (key: string) => T): (key: string) => T {
  const made = new Map<string, T>();
  return (key) => {
    let found = made.get(key);
    if (found === undefined) {
      found = create(key);
      made.set(key, found);
    }
    return found;
  };
}

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
  const outcomes = perKey((outcome) => metrics.accessDecisions.labels({ surface, outcome }));
  const credits = metrics.creditsConsumed;
  const count = (decision: AccessDecision): AccessDecision => {
    outcomes(decision.allowed ? "allowed" : decision.error.code).inc();
    const consumed = decision.credits?.consumed ?? 0;
    if (consumed > 0) credits.inc(consumed);
    return decision;
  };
  return {
    authenticate: (authorization, client) => access.authenticate(authorization, client),
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
    allowed: metrics.rateLimitDecisions.labels({ group, outcome: "allowed" }),
    limited: metrics.rateLimitDecisions.labels({ group, outcome: "limited" }),
  }));
  const count = (group: string, outcome: "allowed" | "limited") => groups(group)[outcome].inc();
  return {
    peek: (orgId, group) => rateLimit.peek(orgId, group),
    async consume(orgId, group, request) {
      const decision = await rateLimit.consume(orgId, group, request);
      count(group, decision.type === "allow" ? "allowed" : "limited");
      return decision;
    },
    async consumeExpecting(orgId, group, expectedVersion, request) {
      const decision = await rateLimit.consumeExpecting(orgId, group, expectedVersion, request);
      // A stale answer decided nothing: the request is decided (and counted) once more.
      if (decision.type !== "stale") count(group, decision.type === "allow" ? "allowed" : "limited");
      return decision;
    },
  };
}

/** Counts the record cache's reads, one series kept per (record, outcome): this runs on every read. */
export function countRecordCacheReads(metrics: LatchkeyMetrics): (record: string, outcome: string) => void {
  const records = perKey((record) =>
    perKey((outcome) => metrics.recordCacheReads.labels({ record, outcome })),
  );
  return (record, outcome) => records(record)(outcome).inc();
}
