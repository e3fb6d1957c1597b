import fastJson from "fast-json-stringify";
import { effectivePermissions } from "../domain/permissions.js";
import type { ApiKeyRecord } from "../store/key-store.js";
import { type KeyRecord, KeyRecord as KeyRecordSchema } from "./schemas.js";

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

/**
 * A key record's body as the route's response schema serializes it (fast-json-stringify, which Fastify
 * compiles response schemas with), shared by the route and the read answered in front of Fastify
 * (fast-key-read.ts) so that both send the same bytes.
 */
const serializeKeyRecord = fastJson(KeyRecordSchema);

/** The bodies of key reads, serialized once per frozen (cached) record and once per read otherwise. */
export interface KeyBodies {
  of(key: ApiKeyRecord): string;
}

/**
 * A key read back on every request costs a lookup instead of a serialization (about 1.5 µs,
 * bench/micro.mjs): cached records are frozen and never change.
 */
export function keyBodies(): KeyBodies {
  const bodiesOfFrozen = new WeakMap<ApiKeyRecord, string>();
  return {
    of(key) {
      const known = bodiesOfFrozen.get(key);
      if (known !== undefined) return known;
      const body = serializeKeyRecord(toKeyResponse(key));
      if (Object.isFrozen(key)) bodiesOfFrozen.set(key, body);
      return body;
    },
  };
}
