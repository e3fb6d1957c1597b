import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Prefixes make each kind of string recognisable at a glance and to secret scanners. */
export const KEY_ID_PREFIX = "key_";
export const API_ID_PREFIX = "lkid_";
export const SECRET_PREFIX = "lksk_";

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

/** A new secret in the GitHub token scheme: prefix, random body, CRC32 checksum of the body. */
export function newSecret(): string {
  const body = randomBase62(SECRET_BODY_LENGTH);
  return SECRET_PREFIX + body + base62Fixed(crc32(body), CHECKSUM_LENGTH);
}

/** Whether a string has the shape and checksum of a latchkey secret (what an offline scanner checks). */
export function hasValidSecretChecksum(secret: string): boolean {
  const pattern = new RegExp(
    `^${SECRET_PREFIX}([0-9A-Za-z]{${SECRET_BODY_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
  );
  const match = pattern.exec(secret);
  if (!match?.[1] || !match[2]) return false;
  return base62Fixed(crc32(match[1]), CHECKSUM_LENGTH) === match[2];
}

const KEY_ID_PATTERN = new RegExp(`^${KEY_ID_PREFIX}[0-9A-Za-z]{${ID_BODY_LENGTH}}$`);

export function isKeyId(value: string): boolean {
  return KEY_ID_PATTERN.test(value);
}

/**
 * Hashes secrets for storage: SHA-256, or HMAC-SHA-256 when the operator configured a pepper, so that a
 * stolen database alone does not allow offline guessing.
 */
export interface SecretHasher {
  /** The stored form of a secret, hex encoded. */
  hash(secret: string): string;
  /** Compares a presented secret with a stored hash in constant time. */
  matches(secret: string, storedHash: string): boolean;
}

export function createSecretHasher(pepper?: string): SecretHasher {
  const digest = (secret: string): Buffer =>
    pepper
      ? createHmac("sha256", pepper).update(secret).digest()
      : createHash("sha256").update(secret).digest();
  return {
    hash: (secret) => digest(secret).toString("hex"),
    matches(secret, storedHash) {
      const stored = Buffer.from(storedHash, "hex");
      const presented = digest(secret);
      return stored.length === presented.length && timingSafeEqual(stored, presented);
    },
  };
}
