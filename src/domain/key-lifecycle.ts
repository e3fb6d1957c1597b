import type { SecretHasher, SecretScheme } from "./credentials.js";
import { LatchkeyError } from "./errors.js";
import { parseRfc3339 } from "./rfc3339.js";

/**
 * Expiry and rolling (docs/key-lifecycle.md). Expiry only ever comes closer: an update may bring it
 * forward, never later and never remove it, so a key given a lifetime cannot outlive it. A roll gives a
 * key a new secret and keeps at most one previous secret, working until the end of its overlap.
 */

/** The longest overlap of a roll: one week. */
export const MAX_OVERLAP_SECONDS = 604_800;

/**
 * The overlap of a roll that names none: an hour, time for a deployment to pick the new secret up
 * while the old one keeps working (docs/key-lifecycle.md). A leaked secret is rolled with 0.
 */
export const DEFAULT_OVERLAP_SECONDS = 3_600;

const DAY_MS = 86_400_000;

export const EXPIRY_ONLY_FORWARD = "an expiry can only be brought forward; roll or create a key instead";

/** A 400 naming `/expires_at`; `sentence` reads on its own when true, else follows the field's name. */
function expiryRefused(problem: string, sentence = false): LatchkeyError {
  const message = sentence ? `Invalid request: ${problem}.` : `Invalid request: /expires_at ${problem}.`;
  return new LatchkeyError("invalid_request", message, {
    validationErrors: [{ path: "/expires_at", message: problem }],
  });
}

/** What expiry and rolling read of a key. */
export interface KeySecrets {
  secretHash: string;
  /** How `secretHash` was made (an imported key may keep a plain SHA-256). */
  secretScheme: SecretScheme;
  expiresAt: number | null;
  previousSecretHash: string | null;
  /** How `previousSecretHash` was made: the scheme of the secret the roll replaced. */
  previousSecretScheme: SecretScheme;
  previousSecretExpiresAt: number | null;
}

/** Whether the key no longer authenticates at `now`: expiry is exact to the millisecond. */
export function isExpired(key: Pick<KeySecrets, "expiresAt">, now: number): boolean {
  return key.expiresAt !== null && key.expiresAt <= now;
}

/**
 * Whether `secret` is one of the key's working secrets at `now`: the current one, or the previous one
 * while its overlap lasts. Both hashes are compared whenever there are two, in constant time each, so
 * the time taken does not tell which one matched.
 */
export function secretWorks(
  key: KeySecrets,
  secret: string,
  now: number,
  hasher: Pick<SecretHasher, "matches">,
): boolean {
  const current = hasher.matches(secret, key.secretHash, key.secretScheme);
  if (key.previousSecretHash === null) return current;
  const previous = hasher.matches(secret, key.previousSecretHash, key.previousSecretScheme);
  return current || (previous && key.previousSecretExpiresAt !== null && now < key.previousSecretExpiresAt);
}

/** Whether the date part names a real day: `Date.parse` turns 2027-02-31 into March 3rd. */
function isCalendarDate(value: string): boolean {
  const [year = NaN, month = NaN, day = NaN] = value.slice(0, 10).split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
}

/** A requested `expires_at` as epoch milliseconds: null to remove, undefined when omitted. */
export function parseRequestedExpiry(
  value: string | null | undefined,
  now: number,
): number | null | undefined {
  if (value === undefined || value === null) return value;
  const ms = parseRfc3339(value);
  if (ms === undefined || !isCalendarDate(value)) {
    throw expiryRefused(`must be an RFC 3339 time such as 2026-11-22T10:00:00Z, not "${value}"`);
  }
  if (ms <= now) throw expiryRefused("must be in the future");
  return ms;
}

/**
 * The expiry of a new key: the requested one, or, under the organization's longest lifetime, the
 * creation time plus that lifetime; a requested expiry past it is refused.
 */
export function expiryOnCreate(
  requested: number | null | undefined,
  createdAt: number,
  maxLifetimeDays: number | null,
): number | null {
  if (maxLifetimeDays === null) return requested ?? null;
  const latest = createdAt + maxLifetimeDays * DAY_MS;
  if (requested === undefined || requested === null) return latest;
  if (requested > latest) {
    throw expiryRefused(
      `must be at most ${maxLifetimeDays} days after the key's creation ` +
        `(${new Date(latest).toISOString()}), the organization's longest key lifetime`,
    );
  }
  return requested;
}

/**
 * The expiry after an update: kept when omitted, the same value accepted, an earlier one taken;
 * a later one, or null on an expiring key, refused.
 */
export function expiryOnUpdate(current: number | null, requested: number | null | undefined): number | null {
  if (requested === undefined || requested === current) return current;
  if (current !== null && (requested === null || requested > current)) {
    throw expiryRefused(EXPIRY_ONLY_FORWARD, true);
  }
  return requested;
}

/**
 * The secrets after a roll at `now` with an overlap in seconds: the new hash is the key's secret, the
 * replaced one works until `now + overlap` (not at all with 0). The secret a roll during an overlap
 * replaced earlier is dropped: a key has at most two working secrets. The new secret is hashed the
 * server's way; the replaced one keeps its own scheme for the overlap.
 */
export function rolledSecrets(
  current: KeySecrets,
  newSecretHash: string,
  now: number,
  overlapSeconds: number,
): Pick<
  KeySecrets,
  "secretHash" | "secretScheme" | "previousSecretHash" | "previousSecretScheme" | "previousSecretExpiresAt"
> {
  if (overlapSeconds === 0) {
    return {
      secretHash: newSecretHash,
      secretScheme: "server",
      previousSecretHash: null,
      previousSecretScheme: "server",
      previousSecretExpiresAt: null,
    };
  }
  return {
    secretHash: newSecretHash,
    secretScheme: "server",
    previousSecretHash: current.secretHash,
    // The replaced secret keeps working the way it was stored (an imported plain SHA-256 included).
    previousSecretScheme: current.secretScheme,
    previousSecretExpiresAt: now + overlapSeconds * 1000,
  };
}
