import { LatchkeyError } from "./errors.js";

/**
 * `Idempotency-Key` on creates (docs/keys.md, "Retrying a create"): the IETF httpapi idempotency-key
 * draft, as Stripe has it. A repeat with the same key and body within the window returns the first
 * response and creates nothing.
 */

/** The request header, as Node presents it (lower case). */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

/** How long a first response is kept and replayed: 24 hours. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * How long a create that is running holds its key: a repeat meanwhile is `idempotency_key_in_use`.
 * A holder that died (a crash, a lost database) frees it when this lapses; the create's transaction
 * checks it still holds the key, so a lapse never lets two creates commit.
 */
export const IDEMPOTENCY_LEASE_MS = 10_000;

/** 1 to 255 printable ASCII characters (space to tilde). */
export const IDEMPOTENCY_KEY_PATTERN = "^[\\x20-\\x7E]{1,255}$";

export function idempotencyKeyReused(): LatchkeyError {
  return new LatchkeyError(
    "idempotency_key_reused",
    "This Idempotency-Key was already used with a different request body (or another route) in the " +
      "last 24 hours; a retry must repeat the first request exactly. Use a new key for a new request.",
  );
}

export function idempotencyKeyInUse(): LatchkeyError {
  return new LatchkeyError(
    "idempotency_key_in_use",
    "A request with this Idempotency-Key is still being processed; retry in a second to receive its response.",
    { retryAfterSeconds: 1 },
  );
}
