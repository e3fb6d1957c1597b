import { createPublicKey, type KeyObject, verify } from "node:crypto";

/**
 * GitHub's secret scanning partner program signs every report: ECDSA P-256 with SHA-256 over the raw
 * body, base64 DER in `GITHUB-PUBLIC-KEY-SIGNATURE`, made with the key named in
 * `GITHUB-PUBLIC-KEY-IDENTIFIER`. The public keys are published at
 * `https://api.github.com/meta/public_keys/secret_scanning`, and latchkey reads a copy of that answer
 * from a file (docs/secret-scanning.md), so it never depends on reaching GitHub to verify a report.
 */

/** The public keys of a secret scanner, by key identifier. */
export type ScanningKeys = ReadonlyMap<string, KeyObject>;

/** What verifying one report found. */
export type SignatureCheck = "valid" | "missing" | "unknown_key" | "bad_signature";

/**
 * Parses GitHub's `/meta/public_keys/secret_scanning` answer,
 * `{"public_keys": [{"key_identifier", "key", "is_current"}]}` with each key in PEM. Every listed key is
 * accepted, current or not: GitHub signs with an older key for a while after it rotates. Throws with a
 * message naming what is wrong, for the start to stop on.
 */
export function parseScanningKeys(text: string, where: string): ScanningKeys {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where}: not JSON (${(error as Error).message})`);
  }
  const list = (document as { public_keys?: unknown } | null)?.public_keys;
  if (!Array.isArray(list) || list.length === 0) {
    throw new Error(`${where}: expected {"public_keys": [{"key_identifier", "key", "is_current"}, ...]}`);
  }
  const keys = new Map<string, KeyObject>();
  list.forEach((entry: unknown, index) => {
    const { key_identifier: id, key } = (entry ?? {}) as { key_identifier?: unknown; key?: unknown };
    if (typeof id !== "string" || id === "" || typeof key !== "string") {
      throw new Error(`${where}: public_keys[${index}] needs a key_identifier and a key (PEM)`);
    }
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey(key);
    } catch (error) {
      throw new Error(
        `${where}: public_keys[${index}].key is not a PEM public key (${(error as Error).message})`,
      );
    }
    if (publicKey.asymmetricKeyType !== "ec") {
      throw new Error(`${where}: public_keys[${index}].key is not an ECDSA key`);
    }
    keys.set(id, publicKey);
  });
  return keys;
}

/** The key a report names, before its body is read: missing headers and unknown keys stop here. */
export function checkKeyIdentifier(
  keys: ScanningKeys,
  identifier: string | undefined,
  signature: string | undefined,
): SignatureCheck {
  if (!identifier || !signature) return "missing";
  return keys.has(identifier) ? "valid" : "unknown_key";
}

/** Verifies the signature of the raw body bytes, exactly as received. */
export function checkSignature(
  keys: ScanningKeys,
  identifier: string | undefined,
  signature: string | undefined,
  body: Buffer,
): SignatureCheck {
  const named = checkKeyIdentifier(keys, identifier, signature);
  const key = identifier === undefined ? undefined : keys.get(identifier);
  if (named !== "valid" || !key || signature === undefined) return named;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature.trim())) return "bad_signature";
  try {
    return verify("sha256", body, key, Buffer.from(signature.trim(), "base64")) ? "valid" : "bad_signature";
  } catch {
    // A signature that is not DER at all: node refuses to read it rather than answering false.
    return "bad_signature";
  }
}
