import { isExpired } from "../domain/key-lifecycle.js";
import { effectivePermissions } from "../domain/permissions.js";
import { policiesToJson } from "../domain/rate-limit-policies.js";
import type { ApiKeyRecord } from "../store/key-store.js";
import type { KeyRecord } from "./schemas.js";

/**
 * The responses of cached records, which are frozen and so never change: a key read back on every
 * request is converted (three dates, its permissions) once, not once per request.
 */
const responsesOfFrozen = new WeakMap<ApiKeyRecord, KeyRecord>();

/**
 * The public record of a key: never its secret or hash, permissions as currently granted, and whether
 * it has expired at `now` (which changes with time alone, so it is never part of the cached response).
 */
export function toKeyResponse(key: ApiKeyRecord, now: number): KeyRecord {
  const response = unexpiredResponse(key);
  return isExpired(key, now) ? { ...response, expired: true } : response;
}

function unexpiredResponse(key: ApiKeyRecord): KeyRecord {
  const known = responsesOfFrozen.get(key);
  if (known) return known;
  const response: KeyRecord = {
    id: key.id,
    api_id: key.apiId,
    name: key.name,
    description: key.description,
    enabled: key.enabled,
    permissions: effectivePermissions(key),
    all_future_permissions: key.allFuturePermissions,
    created_at: new Date(key.createdAt).toISOString(),
    updated_at: new Date(key.updatedAt).toISOString(),
    last_used_at: key.lastUsedAt === null ? null : new Date(key.lastUsedAt).toISOString(),
    leaked_at: key.leakedAt === null ? null : new Date(key.leakedAt).toISOString(),
    allowed_cidrs: key.allowedCidrs === null ? null : [...key.allowedCidrs],
    metadata: key.metadata === null ? null : { ...key.metadata },
    expires_at: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
    expired: false,
  };
  // Only when set: records of keys without their own limits keep the shape clients already read.
  if (key.rateLimits) {
    response.rate_limits = {};
    for (const [group, policies] of Object.entries(key.rateLimits))
      response.rate_limits[group] = { policies: policiesToJson(policies) };
  }
  if (Object.isFrozen(key)) responsesOfFrozen.set(key, Object.freeze(response));
  return response;
}
