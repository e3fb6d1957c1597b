import { effectivePermissions } from "../domain/permissions.js";
import type { ApiKeyRecord } from "../store/key-store.js";
import type { KeyRecord } from "./schemas.js";

/**
 * The responses of cached records, which are frozen and so never change: a key read back on every
 * request is converted (three dates, its permissions) once, not once per request.
 */
const responsesOfFrozen = new WeakMap<ApiKeyRecord, KeyRecord>();

/** The public record of a key: never its secret or hash, permissions as currently granted. */
export function toKeyResponse(key: ApiKeyRecord): KeyRecord {
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
  };
  if (Object.isFrozen(key)) responsesOfFrozen.set(key, Object.freeze(response));
  return response;
}

/** What Fastify sets on a body its serializer produced; a body sent already serialized must say it too. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** The bodies of a route's key reads, kept per frozen (cached) record. */
export interface KeyBodies {
  /** The body of `key`: serialized by `serialize` unless it was already, for this very record. */
  of(key: ApiKeyRecord, serialize: (response: KeyRecord) => string): string;
  /** The body the route already serialized for `key`, if it is a cached record read before. */
  known(key: ApiKeyRecord): string | undefined;
}

/**
 * The bodies of a route's key reads, serialized by that route's own response schema once per frozen
 * (cached) record, so a key read back on every request costs a lookup instead of a serialization
 * (about 1.5 µs, bench/micro.mjs). One per route: it holds what that route's serializer produced.
 */
export function keyBodies(): KeyBodies {
  const bodiesOfFrozen = new WeakMap<ApiKeyRecord, string>();
  return {
    of(key, serialize) {
      const known = bodiesOfFrozen.get(key);
      if (known !== undefined) return known;
      const body = serialize(toKeyResponse(key));
      if (Object.isFrozen(key)) bodiesOfFrozen.set(key, body);
      return body;
    },
    known: (key) => bodiesOfFrozen.get(key),
  };
}
