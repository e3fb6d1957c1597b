import { newApiId, newKeyId, randomBase62 } from "../../src/domain/credentials.js";
import type { ApiKeyRecord, Organization } from "../../src/store/key-store.js";

// Records for the store contract tests, written straight to a store (no service in between).

/** The time every record is created at, unless a test says otherwise. */
export const T0 = Date.parse("2026-11-22T10:00:00.000Z");

export function newOrganization(name = "acme"): Organization {
  return { id: `org_${randomBase62(22)}`, name, createdAt: T0 };
}

export function newKey(orgId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: newKeyId(),
    orgId,
    apiId: newApiId(),
    secretHash: "ab".repeat(32),
    secretScheme: "server",
    name: "a key",
    description: null,
    enabled: true,
    permissions: ["api_keys:read"],
    allFuturePermissions: false,
    createdAt: T0,
    updatedAt: T0,
    lastUsedAt: null,
    leakedAt: null,
    allowedCidrs: null,
    metadata: null,
    expiresAt: null,
    previousSecretHash: null,
    previousSecretScheme: "server",
    previousSecretExpiresAt: null,
    ...overrides,
  };
}
