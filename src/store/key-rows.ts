import type { SecretScheme } from "../domain/credentials.js";
import { type KeyRateLimits, policiesFromJson, policiesToJson } from "../domain/rate-limit-policies.js";
import { isPermission, type Permission } from "../domain/permissions.js";
import type { ApiKeyRecord } from "./key-store.js";
import type { ApiKeysTable } from "./schema.js";

/** `,a,b,`: every name wrapped in commas, so `LIKE '%,name,%'` matches exactly one name. */
export function encodePermissions(permissions: readonly Permission[]): string {
  return permissions.length === 0 ? "," : `,${permissions.join(",")},`;
}

/** Names no longer in the catalogue are dropped rather than reported as granted. */
export function decodePermissions(stored: string): Permission[] {
  return stored.split(",").filter((name): name is Permission => name !== "" && isPermission(name));
}

/** A LIKE pattern matching one encoded name; `_` and `%` are escaped with `\`. */
export function permissionPattern(permission: string): string {
  return `%,${permission.replace(/[\\%_]/g, (c) => `\\${c}`)},%`;
}

export function rowToRecord(row: ApiKeysTable): ApiKeyRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    apiId: row.api_id,
    secretHash: row.secret_hash,
    name: row.name,
    description: row.description,
    enabled: Number(row.enabled) === 1,
    permissions: decodePermissions(row.permissions),
    allFuturePermissions: Number(row.all_future) === 1,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    // `== null`: a read that selects only some columns leaves it undefined, which means "unknown", not NaN.
    lastUsedAt: row.last_used_at == null ? null : Number(row.last_used_at),
    leakedAt: row.leaked_at == null ? null : Number(row.leaked_at),
    secretScheme: row.secret_scheme === "sha256" ? "sha256" : ("server" satisfies SecretScheme),
    allowedCidrs: row.allowed_cidrs == null ? null : (JSON.parse(row.allowed_cidrs) as string[]),
    metadata: row.metadata == null ? null : (JSON.parse(row.metadata) as Record<string, string>),
    expiresAt: row.expires_at == null ? null : Number(row.expires_at),
    previousSecretHash: row.previous_secret_hash ?? null,
    previousSecretScheme: row.previous_secret_scheme === "sha256" ? "sha256" : "server",
    previousSecretExpiresAt:
      row.previous_secret_expires_at == null ? null : Number(row.previous_secret_expires_at),
    // Only when set, like the wire record's `rate_limits`: a key without its own limits reads back
    // exactly as it was written.
    ...(row.rate_limits == null ? {} : { rateLimits: decodeRateLimits(row.rate_limits) }),
  };
}

type StoredPolicies = { quota: number; window_seconds: number }[];

/** A key's `rate_limits` column: JSON of group -> policies in their wire form. */
export function encodeRateLimits(limits: KeyRateLimits): string {
  const json: Record<string, StoredPolicies> = {};
  for (const [group, policies] of Object.entries(limits)) json[group] = policiesToJson(policies);
  return JSON.stringify(json);
}

function decodeRateLimits(stored: string): KeyRateLimits {
  const limits: Record<string, ReturnType<typeof policiesFromJson>> = Object.create(null) as Record<
    string,
    ReturnType<typeof policiesFromJson>
  >;
  for (const [group, policies] of Object.entries(JSON.parse(stored) as Record<string, StoredPolicies>))
    limits[group] = policiesFromJson(policies);
  return limits;
}

export function recordToRow(key: ApiKeyRecord): ApiKeysTable {
  return {
    id: key.id,
    org_id: key.orgId,
    api_id: key.apiId,
    secret_hash: key.secretHash,
    name: key.name,
    description: key.description,
    enabled: key.enabled ? 1 : 0,
    permissions: encodePermissions(key.permissions),
    all_future: key.allFuturePermissions ? 1 : 0,
    created_at: key.createdAt,
    updated_at: key.updatedAt,
    last_used_at: key.lastUsedAt,
    leaked_at: key.leakedAt,
    secret_scheme: key.secretScheme,
    allowed_cidrs: key.allowedCidrs === null ? null : JSON.stringify(key.allowedCidrs),
    metadata: key.metadata === null ? null : JSON.stringify(key.metadata),
    expires_at: key.expiresAt,
    previous_secret_hash: key.previousSecretHash,
    previous_secret_scheme: key.previousSecretScheme,
    previous_secret_expires_at: key.previousSecretExpiresAt,
    rate_limits: key.rateLimits ? encodeRateLimits(key.rateLimits) : null,
  };
}
