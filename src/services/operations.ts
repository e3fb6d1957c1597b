import { LatchkeyError } from "../domain/errors.js";
import type { Permission } from "../domain/permissions.js";
import type { RateLimitGroup } from "../domain/rate-limit-groups.js";

/** What a management operation demands of its caller, shared by every protocol that offers it. */
export interface OperationPolicy {
  /** Permission the calling key must hold. */
  permission: Permission;
  /** Operation group the request counts against; none for operations the spec does not limit (usage). */
  group?: RateLimitGroup;
}

export const KEY_OPERATIONS = {
  listKeys: { permission: "api_keys:read", group: "api-key:read" },
  getKey: { permission: "api_keys:read", group: "api-key:read" },
  createKey: { permission: "api_keys:create_update", group: "api-key:write" },
  updateKey: { permission: "api_keys:create_update", group: "api-key:write" },
  disableKey: { permission: "api_keys:delete", group: "api-key:write" },
  rollKey: { permission: "api_keys:create_update", group: "api-key:write" },
} as const satisfies Record<string, OperationPolicy>;

/** `GET /v1/usage`: not rate-limited (spec, "Management request limits"). */
export const USAGE_OPERATION = { permission: "usage:read" } as const satisfies OperationPolicy;

export function missingPermission(permission: Permission): LatchkeyError {
  return new LatchkeyError("missing_permission", `This operation requires the ${permission} permission.`);
}

/**
 * `GET /v1/audit`: counted against `api-key:read`, because reading the trail is a management read like
 * listing keys (a page is one indexed query, but unbounded polling would still load the database), and
 * an existing group keeps the operator's overrides and the RateLimit headers meaningful.
 */
export const AUDIT_OPERATION = {
  permission: "audit:read",
  group: "api-key:read",
} as const satisfies OperationPolicy;

/** Webhook endpoints, their attempts, tests and resends (docs/webhooks.md). */
export const WEBHOOK_OPERATIONS = {
  read: { permission: "webhooks:read", group: "webhook:read" },
  write: { permission: "webhooks:create_update", group: "webhook:write" },
} as const satisfies Record<string, OperationPolicy>;
