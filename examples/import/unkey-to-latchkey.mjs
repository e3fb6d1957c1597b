#!/usr/bin/env node
// Converts an Unkey-style key export into the lines `latchkey keys import` reads (docs/import.md).
//
//   node unkey-to-latchkey.mjs export.json > keys.jsonl
//
// The export is a JSON array of keys (or {"keys": [...]}) as Unkey keeps them: `id`, `name`, `meta`,
// `permissions`, `expires` (epoch milliseconds or null), and `hash`, the SHA-256 of the secret in base64 (Unkey's `sha256_base64`) or in hex.
// Each key keeps its id as its api_id, so callers send `<id>:<old secret>` with HTTP Basic. Permissions
// must be latchkey's names (images:create, ...); any other is reported by the import with its line.
// `meta` is carried as `metadata` (string values only) when --metadata is given.
import { readFileSync } from "node:fs";

const [file, flag] = process.argv.slice(2);
if (!file) {
  process.stderr.write("usage: node unkey-to-latchkey.mjs <export.json|-> [--metadata]\n");
  process.exit(2);
}
const text = readFileSync(file === "-" ? 0 : file, "utf8");
const parsed = JSON.parse(text);
const keys = Array.isArray(parsed) ? parsed : parsed.keys;

/** Hex SHA-256 from Unkey's base64 (or an already hex) hash. */
function hexHash(hash) {
  if (/^[0-9a-fA-F]{64}$/.test(hash)) return hash.toLowerCase();
  const bytes = Buffer.from(hash, "base64");
  if (bytes.length !== 32) throw new Error(`key hash ${hash} is neither hex nor base64 SHA-256`);
  return bytes.toString("hex");
}

for (const key of keys) {
  const line = {
    name: key.name ?? null,
    permissions: key.permissions ?? [],
    api_id: key.id,
    secret_sha256: hexHash(key.hash),
  };
  // Unkey's `expires`: epoch milliseconds, or null for a key that never expires.
  if (key.expires != null) line.expires_at = new Date(key.expires).toISOString();
  if (flag === "--metadata" && key.meta) {
    line.metadata = Object.fromEntries(
      Object.entries(key.meta).map(([name, value]) => [name, String(value)]),
    );
  }
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
