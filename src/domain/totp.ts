import { Secret, TOTP } from "otpauth";

/**
 * Two-factor codes for console users (RFC 6238 TOTP, the codes of every authenticator app): SHA-1,
 * six digits, a new code every 30 seconds, through the `otpauth` library.
 */
const PERIOD_SECONDS = 30;
/** A code of the step before or after is accepted too: a phone's clock may be off by some seconds. */
const WINDOW_STEPS = 1;

const totpOf = (secret: string, label = "") =>
  new TOTP({ issuer: "latchkey", label, secret: Secret.fromBase32(secret), period: PERIOD_SECONDS });

/** A new random secret (160 bits, as RFC 4226 recommends), in base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** Whether `text` is a secret as `newTotpSecret` makes them (a form may send anything back). */
export function isTotpSecret(text: string): boolean {
  return /^[A-Z2-7]{32}$/.test(text);
}

/** The `otpauth://` address an authenticator app scans, naming latchkey and the user's email. */
export function totpUri(secret: string, email: string): string {
  return totpOf(secret, email).toString();
}

/**
 * The time step (30-second period since the epoch) whose code `code` is, within one step of `nowMs`,
 * or null when it is none of them. The caller refuses a step already used, so a code works once.
 */
export function totpStep(secret: string, code: string, nowMs: number): number | null {
  const token = code.replace(/\s/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpOf(secret).validate({ token, timestamp: nowMs, window: WINDOW_STEPS });
  return delta === null ? null : Math.floor(nowMs / 1000 / PERIOD_SECONDS) + delta;
}

/** The code of `nowMs` (tests, and the example in the docs). */
export function totpCode(secret: string, nowMs: number): string {
  return totpOf(secret).generate({ timestamp: nowMs });
}
