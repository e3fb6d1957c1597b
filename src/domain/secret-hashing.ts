import { createHmac } from "node:crypto";

/**
 * How a deployment hashes the secrets it stores (docs/security.md): plain SHA-256, or HMAC-SHA-256 with
 * LATCHKEY_SECRET_PEPPER. Servers record theirs in the database when they start, so that an operator
 * command that hashes secrets beside the database (`keys import`) can tell when its own environment
 * would hash them differently, and the keys it stores would never authenticate.
 */
export interface SecretHashing {
  /** `sha256` without a pepper, `hmac-sha256` with one. */
  scheme: "sha256" | "hmac-sha256";
  /**
   * Which pepper, without the pepper: the first 8 hex digits of HMAC-SHA-256(pepper, a fixed label);
   * null without a pepper. Short on purpose: it tells two peppers apart by accident 1 time in 4
   * billion, and, should the database be stolen, cannot confirm a guessed pepper among more candidates
   * than that.
   */
  pepperFingerprint: string | null;
}

const FINGERPRINT_LABEL = "latchkey secret pepper fingerprint v1";
const FINGERPRINT_HEX_DIGITS = 8;

/** The hashing a process configured with `pepper` (LATCHKEY_SECRET_PEPPER, or none) uses. */
export function secretHashingOf(pepper: string | undefined): SecretHashing {
  if (!pepper) return { scheme: "sha256", pepperFingerprint: null };
  const fingerprint = createHmac("sha256", pepper).update(FINGERPRINT_LABEL).digest("hex");
  return { scheme: "hmac-sha256", pepperFingerprint: fingerprint.slice(0, FINGERPRINT_HEX_DIGITS) };
}

/**
 * Why secrets hashed as `own` would not match the deployment's, in words an operator can act on; null
 * when they hash alike.
 */
export function hashingDisagreement(deployment: SecretHashing, own: SecretHashing): string | null {
  if (deployment.scheme === "hmac-sha256" && own.scheme === "sha256") {
    return "the servers of this database hash secrets with a pepper, and LATCHKEY_SECRET_PEPPER is not set here";
  }
  if (deployment.scheme === "sha256" && own.scheme === "hmac-sha256") {
    return "the servers of this database hash secrets without a pepper, and LATCHKEY_SECRET_PEPPER is set here";
  }
  if (deployment.pepperFingerprint !== own.pepperFingerprint) {
    return "LATCHKEY_SECRET_PEPPER here differs from the servers' (its fingerprint does not match)";
  }
  return null;
}
