import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Encrypts the first response of a key create (it holds the new secret) for the idempotency window:
 * AES-256-GCM under a key derived (HKDF-SHA256) from server key material, bound to the organization and
 * `Idempotency-Key` it answers, so a row copied elsewhere does not open. The console seals a secret on
 * its way to the page that shows it the same way, under a key of its session's (`purpose` apart).
 */
export interface ResponseSealer {
  seal(plaintext: string, context: string): string;
  /** The plaintext; throws if the text was sealed under another key or context, or altered. */
  open(sealed: string, context: string): string;
}

const PREFIX = "aes-256-gcm:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function createResponseSealer(
  material: string | Buffer,
  purpose = "idempotent-responses-v1",
): ResponseSealer {
  const key = Buffer.from(hkdfSync("sha256", material, "latchkey", purpose, 32));
  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64");
    },
    open(sealed, context) {
      if (!sealed.startsWith(PREFIX)) throw new Error("not a sealed response");
      const bytes = Buffer.from(sealed.slice(PREFIX.length), "base64");
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    },
  };
}
