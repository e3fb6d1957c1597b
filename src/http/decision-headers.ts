import type { ManagementDecision } from "../ratelimit/management-rate-limit.js";
import type { AccessDecision } from "../services/access-decision.js";

/** Where a decision is relayed: MCP errors carry no rate-limit headers (spec, "MCP tools"). */
export type Protocol = "rest" | "mcp";

export const WWW_AUTHENTICATE = 'Basic realm="latchkey", charset="UTF-8"';

/**
 * `RateLimit-Policy` and `RateLimit` (docs/rate-limits.md), with `t=` seconds until a slot frees. A
 * group of several windows lists each in `RateLimit-Policy` (`"render/1";q=10;w=1, ...`), and
 * `RateLimit` names the most restrictive one (on a refusal, one that could not hold the request).
 */
export function rateLimitHeaders(decision: ManagementDecision): Record<string, string> {
  const reset = decision.type === "allow" ? decision.resetSeconds : decision.retryAfterSeconds;
  const { windows } = decision;
  if (windows.length <= 1) {
    const remaining = decision.type === "allow" ? decision.remaining : 0;
    return {
      "RateLimit-Policy": `"${decision.group}";q=${decision.quota};w=${decision.windowSeconds}`,
      RateLimit: `"${decision.group}";r=${remaining};t=${reset}`,
    };
  }
  const named = windows.find((w) => w.windowSeconds === decision.windowSeconds) ?? windows[0];
  const remaining = decision.type === "allow" ? decision.remaining : (named?.remaining ?? 0);
  return {
    "RateLimit-Policy": windows.map((w) => `"${w.name}";q=${w.quota};w=${w.windowSeconds}`).join(", "),
    RateLimit: `"${named?.name ?? decision.group}";r=${remaining};t=${reset}`,
  };
}

/**
 * Every header a decision gives the caller, as a platform or gateway relays them: the group's
 * rate-limit headers (and `Retry-After` on its 429, and on the 503 `rate_limiter_unavailable`), the
 * `x-renders-*` credit headers (also on the plan-limit 429, with consumed 0), and `WWW-Authenticate`
 * on a 401.
 */
export function decisionHeaders(
  decision: AccessDecision,
  protocol: Protocol = "rest",
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (decision.rateLimit && protocol === "rest") {
    Object.assign(headers, rateLimitHeaders(decision.rateLimit));
    if (decision.rateLimit.type === "deny")
      headers["Retry-After"] = String(decision.rateLimit.retryAfterSeconds);
  }
  // The 503 of the `refuse` outage policy, which has no rate-limit decision to take it from.
  if (protocol === "rest" && decision.error?.code === "rate_limiter_unavailable") {
    headers["Retry-After"] = String(decision.error.retryAfterSeconds ?? 1);
  }
  if (decision.credits) {
    headers["x-renders-allowed"] = String(decision.credits.allowance);
    headers["x-renders-consumed"] = String(decision.credits.consumed);
    headers["x-renders-used"] = String(decision.credits.used);
  }
  if (decision.error?.code === "unauthorized") headers["WWW-Authenticate"] = WWW_AUTHENTICATE;
  return headers;
}
