import { invalidRequest } from "../domain/errors.js";
import type { GroupLimit } from "../domain/rate-limit-policies.js";

/**
 * What the limiter enforces today: one window per group, counted per organization. A group or an
 * override with several windows, or counted per key, is refused with a 400 that says so, rather than
 * stored and silently enforced as something else. Stacked windows and per-key counting (one atomic
 * step over every window) replace this check when they land (docs/rate-limits.md).
 */
export function assertEnforceable(limit: GroupLimit, path: string): void {
  if (limit.policies.length > 1) {
    throw invalidRequest(
      "Several windows per group are not enforced by this version yet: give one policy.",
      path,
    );
  }
  if (limit.per === "key") {
    throw invalidRequest('"per": "key" is not enforced by this version yet: count per organization.', path);
  }
}
