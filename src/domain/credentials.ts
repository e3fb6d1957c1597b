import { createHmac, hash, randomBytes, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Prefixes make each kind of string recognisable at a glance and to secret scanners. */
export const KEY_ID_PREFIX = "key_";
export const API_ID_PREFIX = "lkid_";
export const SECRET_PREFIX = "lksk_";
/** Service tokens authenticate the platform's own services to latchkey, never a customer. */
export const SERVICE_TOKEN_PREFIX = "lkst_";
export const SERVICE_TOKEN_ID_PREFIX = "stk_";

const ID_BODY_LENGTH = 22; // 22 base62 characters carry 130 random bits
const SECRET_BODY_LENGTH = 32; // 190 random bits
const CHECKSUM_LENGTH = 6; // CRC32 fits in 6 base62 characters

/** Unbiased base62 from a CSPRNG: bytes at or above 248 (= 4 * 62) are thrown away, not folded. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function base62Fixed(value: number, length: number): string {
  let out = "";
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

export function newKeyId(): string {
  return KEY_ID_PREFIX + randomBase62(ID_BODY_LENGTH);
}

export function newApiId(): string {
  return API_ID_PREFIX + randomBase62(ID_BODY_LENGTH);
}

/** Prefix, random body, CRC32 checksum of the body: the GitHub token scheme. */
function checksummedToken(prefix: string): string {
  const body = randomBase62(SECRET_BODY_LENGTH);
  return prefix + body + base62Fixed(crc32(body), CHECKSUM_LENGTH);
}

function hasValidChecksum(value: string, prefix: string): boolean {
  if (!value.startsWith(prefix)) return false;
  const match = TOKEN_BODY_PATTERN.exec(value.slice(prefix.length));
  if (!match?.[1] || !match[2]) return false;
  return base62Fixed(crc32(match[1]), CHECKSUM_LENGTH) === match[2];
}

const TOKEN_BODY_PATTERN = new RegExp(
  `^([0-9A-Za-z]{${SECRET_BODY_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

/** A new key secret: `lksk_` + 190 random bits + checksum. */
export function newSecret(): string {
  return checksummedToken(SECRET_PREFIX);
}

/** Whether a string has the shape and checksum of a latchkey secret (what an offline scanner checks). */
export function hasValidSecretChecksum(secret: string): boolean {
  return hasValidChecksum(secret, SECRET_PREFIX);
}

/** A new service token: `lkst_` + 190 random bits + checksum, so scanners can find leaked ones too. */
export function newServiceToken(): string {
  return checksummedToken(SERVICE_TOKEN_PREFIX);
}

export function hasValidServiceTokenChecksum(token: string): boolean {
  return hasValidChecksum(token, SERVICE_TOKEN_PREFIX);
}

export function newServiceTokenId(): string {
  return SERVICE_TOKEN_ID_PREFIX + randomBase62(ID_BODY_LENGTH);
}

const KEY_ID_PATTERN = new RegExp(`^${KEY_ID_PREFIX}[0-9A-Za-z]{${ID_BODY_LENGTH}}$`);

export function isKeyId(value: string): boolean {
  return KEY_ID_PATTERN.test(value);
}

/**
 * How a stored secret hash was made. `server`: by the server's hasher below (SHA-256, or HMAC-SHA-256
 * with the pepper). `sha256`: a plain SHA-256 brought by an import from another system, whose plaintext
 * is gone; it keeps matching whatever pepper the server has (docs/import.md).
 */
export type SecretScheme = "server" | "sha256";

/**
 * Hashes secrets for storage: SHA-256, or HMAC-SHA-256 when the operator configured a pepper, so that a
 * stolen database alone does not allow offline guessing.
 */
export interface SecretHasher {
  /** The stored form of a secret, hex encoded. */
  hash(secret: string): string;
  /**
   * Compares a presented secret with a stored hash in constant time, hashed by `scheme` (the server's
   * own hashing when absent).
   */
  matches(secret: string, storedHash: string, scheme?: SecretScheme): boolean;
  /** Compares two hashes from `hash` in constant time (a secret already hashed for a lookup). */
  sameHash(presentedHash: string, storedHash: string): boolean;
}

function equalInConstantTime(presented: Buffer, storedHash: string): boolean {
  const stored = Buffer.from(storedHash, "hex");
  return stored.length === presented.length && timingSafeEqual(stored, presented);
}

/**
 * Whether two strings are equal, taking the same time wherever they differ: no early exit, so a
 * comparison with a remembered secret tells nothing of how much of it a guess got right. Only the
 * length can show, and every latchkey secret and token has the same length. Pure JavaScript, because
 * `timingSafeEqual` needs both as Buffers first, which costs what this is here to save.
 */
export function sameStringInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

const plainSha256 = (secret: string): Buffer => hash("sha256", secret, "buffer");

/** Every hash `secret` may be stored under, one per scheme: what a leak report looks keys up by. */
export function storedHashesOf(hasher: Pick<SecretHasher, "hash">, secret: string): string[] {
  return [...new Set([hasher.hash(secret), plainSha256(secret).toString("hex")])];
}

export function createSecretHasher(pepper?: string): SecretHasher {
  const digest = (secret: string): Buffer =>
    pepper
      ? createHmac("sha256", pepper).update(secret).digest()
      : // One-shot: no Hash object per call (half the cost of createHash on every request).
        hash("sha256", secret, "buffer");
  return {
    hash: (secret) => digest(secret).toString("hex"),
    matches: (secret, storedHash, scheme) =>
      equalInConstantTime(scheme === "sha256" ? plainSha256(secret) : digest(secret), storedHash),
    sameHash: (presentedHash, storedHash) =>
      equalInConstantTime(Buffer.from(presentedHash, "hex"), storedHash),
  };
}
