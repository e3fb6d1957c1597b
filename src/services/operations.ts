import { LatchkeyError } from "../domain/errors.js";
import { type Grant, grantAllows, type Permission } from "../domain/permissions.js";
import type { RateLimitGroup } from "../domain/rate-limit-groups.js";

/** What a management operation demands of its caller, shared by every protocol that offers it. */
export interface OperationPolicy {
  /** Permission the calling key must hold. */
  permission: Permission;
  /** Operation group the request counts against. */
  group: RateLimitGroup;
}

export const KEY_OPERATIONS = {
  listKeys: { permission: "api_keys:read", group: "api-key:read" },
  getKey: { permission: "api_keys:read", group: "api-key:read" },
  createKey: { permission: "api_keys:create_update", group: "api-key:write" },
  updateKey: { permission: "api_keys:create_update", group: "api-key:write" },
  disableKey: { permission: "api_keys:delete", group: "api-key:write" },
} as const satisfies Record<string, OperationPolicy>;

export function assertHasPermission(caller: Grant, permission: Permission): void {
  if (!grantAllows(caller, permission)) {
    throw new LatchkeyError("missing_permission", `This operation requires the ${permission} permission.`);
  }
}
