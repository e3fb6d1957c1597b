import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A stand-in for GitHub's secret scanning service: its own ECDSA P-256 key pair, the public key
 * published in the shape of `GET https://api.github.com/meta/public_keys/secret_scanning`, and reports
 * signed the way GitHub signs them (SHA-256, base64 DER over the raw body).
 */
export interface GithubScanner {
  /** The `key_identifier` GitHub would send in GITHUB-PUBLIC-KEY-IDENTIFIER. */
  keyIdentifier: string;
  /** The PEM public key, as GitHub's answer lists it. */
  publicKeyPem: string;
  privateKey: KeyObject;
  /** The signature headers of `body`, signed with this scanner's key (or `identifier`'s name for it). */
  headersFor(body: string | Buffer, identifier?: string): Record<string, string>;
}

export function githubScanner(
  keyIdentifier = "90a421169f0a406205f1563a953312f0be898d3c7b6c06b681aa86a874555f4a",
): GithubScanner {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  return {
    keyIdentifier,
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    privateKey,
    headersFor(body, identifier = keyIdentifier) {
      return {
        "content-type": "application/json",
        "github-public-key-identifier": identifier,
        "github-public-key-signature": sign("sha256", Buffer.from(body), privateKey).toString("base64"),
      };
    },
  };
}

/** Writes GitHub's public-keys answer listing `scanners` into `dir`; returns the file's path. */
export function writeScanningKeys(dir: string, ...scanners: GithubScanner[]): string {
  const path = join(dir, "secret-scanning-keys.json");
  const public_keys = scanners.map((scanner, index) => ({
    key_identifier: scanner.keyIdentifier,
    key: scanner.publicKeyPem,
    is_current: index === 0,
  }));
  writeFileSync(path, JSON.stringify({ public_keys }, null, 2));
  return path;
}
