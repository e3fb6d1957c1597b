import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Console passwords, hashed with scrypt (memory-hard, in `node:crypto`). The stored form names its
 * parameters, `scrypt$N$r$p$salt$hash`, so that they can be raised later without losing old hashes.
 * N = 2^15 with r = 8 takes 32 MiB and some 50 ms per attempt: cheap for one sign-in, dear for a guesser.
 */
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

/**
 * How dear new hashes are: log2 of scrypt's N (LATCHKEY_PASSWORD_COST, docs/configuration.md). The
 * production cost is the least a deployment may choose; only a test suite may go below it, by naming
 * the test setting, so that its hundreds of sign-ins do not spend minutes hashing.
 */
export type PasswordCost = number;
/** N = 2^15: the default, and the floor of every setting but the test one. */
export const PRODUCTION_PASSWORD_COST: PasswordCost = 15;
/** N = 2^10 (1 MiB, under a millisecond): `LATCHKEY_PASSWORD_COST=insecure-test`, for tests only. */
export const TEST_PASSWORD_COST: PasswordCost = 10;

/** Shortest accepted password: long enough that a throttled guesser gets nowhere. */
export const MIN_PASSWORD_LENGTH = 12;
/** Longest: scrypt reads it whole, and nobody types more. */
export const MAX_PASSWORD_LENGTH = 1024;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** What is wrong with a new password, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters long`;
  if (length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters long`;
  return undefined;
}

export async function hashPassword(
  password: string,
  cost: PasswordCost = PRODUCTION_PASSWORD_COST,
): Promise<string> {
  const n = 2 ** cost;
  const salt = randomBytes(16);
  const hash = await derive(password, salt, n, R, P);
  return `scrypt$${n}$${R}$${P}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** Compares in constant time; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * A hash of no one's password at the cost new hashes are made with, checked when the email is unknown,
 * so that the answer takes as long as for a wrong password and says nothing about which emails exist.
 */
const decoys = new Map<PasswordCost, Promise<string>>();
export function decoyPasswordHash(cost: PasswordCost = PRODUCTION_PASSWORD_COST): Promise<string> {
  let decoy = decoys.get(cost);
  if (!decoy) {
    decoy = hashPassword(randomBytes(24).toString("base64url"), cost);
    decoys.set(cost, decoy);
  }
  return decoy;
}
