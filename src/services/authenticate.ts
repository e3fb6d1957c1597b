import { LatchkeyError } from "../domain/errors.js";
import { organizationDisabled } from "../domain/organization-state.js";
import type { ApiKeyRecord, ApiKeyStore } from "../store/key-store.js";
import type { SecretHasher } from "../domain/credentials.js";
import { isExpired, secretWorks } from "../domain/key-lifecycle.js";

/** The same message for every failure, so a response never tells which part of a credential was wrong. */
const UNAUTHORIZED_MESSAGE =
  "Authentication required: send a valid, enabled api_id and api_key with HTTP Basic.";

export function unauthorized(): LatchkeyError {
  return new LatchkeyError("unauthorized", UNAUTHORIZED_MESSAGE);
}

/** Splits an `Authorization: Basic ...` header (RFC 7617) into user-id and password, or undefined. */
export function parseBasicCredentials(
  header: string | undefined,
): { apiId: string; secret: string } | undefined {
  if (!header) return undefined;
  const match = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return undefined;
  return { apiId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

// Hash of a value no secret can equal: unknown api_ids still pay for one comparison, so response time
// does not reveal which api_ids exist.
const DECOY_HASH = "0".repeat(64);

/** When a request is decided, and who hears of expired keys it ran into. */
export interface AuthenticationMoment {
  /** Epoch milliseconds of the decision: expiry and a rolled secret's overlap are checked against it. */
  now: number;
  /** Told of a key refused because it has expired (its right secret was sent); must not throw. */
  onExpired?: ((key: ApiKeyRecord) => void) | undefined;
}

/**
 * What a key says to a secret at time `now`: accepted; a wrong secret; disabled; or expired (the right
 * secret, too late: worth recording). Every path that accepts a caller, cached or read, asks this.
 */
export function credentialVerdict(
  key: ApiKeyRecord,
  secret: string,
  now: number,
  hasher: Pick<SecretHasher, "matches">,
): "accepted" | "wrong_secret" | "disabled" | "expired" | "organization_disabled" {
  if (!secretWorks(key, secret, now, hasher)) return "wrong_secret";
  if (!key.enabled) return "disabled";
  if (isExpired(key, now)) return "expired";
  // Only a caller with working credentials learns that the platform disabled its organization.
  return key.organizationDisabled ? "organization_disabled" : "accepted";
}

/**
 * Resolves the calling key from its Basic credentials. The store may serve the key from an exact cache
 * (src/cache/exact-cache.ts: only while no write has happened since it was read), so a key disabled on
 * any node or by any process is refused on the very next request everywhere. Expiry is a matter of
 * time, not of a write: it is checked here against the time of this decision, cached key or not.
 */
export async function authenticate(
  header: string | undefined,
  store: Pick<ApiKeyStore, "findKeyByApiId">,
  hasher: Pick<SecretHasher, "matches">,
  moment: AuthenticationMoment,
): Promise<ApiKeyRecord> {
  const credentials = parseBasicCredentials(header);
  if (!credentials) throw unauthorized();
  const key = await store.findKeyByApiId(credentials.apiId);
  if (!key) {
    hasher.matches(credentials.secret, DECOY_HASH);
    throw unauthorized();
  }
  const verdict = credentialVerdict(key, credentials.secret, moment.now, hasher);
  if (verdict === "expired") moment.onExpired?.(key);
  if (verdict === "organization_disabled") throw organizationDisabled();
  if (verdict !== "accepted") throw unauthorized();
  return key;
}
