import { type Static, Type } from "typebox";
import type { ValidationIssue } from "./errors.js";

/**
 * One line of a `latchkey keys import` file (docs/import.md): a key brought from another system, with
 * its secret in plain text or, where the plaintext is gone, as a hex SHA-256. The same limits as keys
 * made over REST apply to the spec's fields; `api_id`, `secret` and `secret_sha256` are the import's own.
 */

/** URL-safe and free of `:` (it is the Basic-auth user name), at most 128 characters. */
export const IMPORTED_API_ID = "^[A-Za-z0-9._~-]{1,128}$";
/** Printable ASCII without spaces, 16 to 512 characters: what a Basic-auth password carries unchanged. */
export const IMPORTED_SECRET = "^[\\x21-\\x7e]{16,512}$";
/** Metadata: up to 20 members, names of 1-40 `[A-Za-z0-9_.-]`, string values up to 500 characters. */
export const METADATA_NAME = "^[A-Za-z0-9_.-]{1,40}$";

export const ImportLine = Type.Object(
  {
    name: Type.Union([Type.String(), Type.Null()]),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    permissions: Type.Array(Type.String(), { maxItems: 1000 }),
    expires_at: Type.Optional(Type.String()),
    metadata: Type.Optional(
      Type.Unsafe<Record<string, string>>({
        type: "object",
        maxProperties: 20,
        propertyNames: { pattern: METADATA_NAME, description: "1 to 40 letters, digits, '_', '.' or '-'" },
        additionalProperties: { type: "string", maxLength: 500 },
      }),
    ),
    api_id: Type.Optional(
      Type.String({
        pattern: IMPORTED_API_ID,
        description: "1 to 128 letters, digits, '.', '_', '~' or '-' (no ':')",
      }),
    ),
    secret: Type.Optional(
      Type.String({
        pattern: IMPORTED_SECRET,
        description: "16 to 512 printable ASCII characters without spaces",
      }),
    ),
    secret_sha256: Type.Optional(
      Type.String({ pattern: "^[0-9A-Fa-f]{64}$", description: "a SHA-256 in hex (64 characters)" }),
    ),
  },
  { additionalProperties: false },
);
export type ImportLine = Static<typeof ImportLine>;

/**
 * What the schema cannot say: exactly one of `secret` and `secret_sha256`. (`expires_at` is checked by
 * the expiry rules of every create.)
 */
export function importLineIssues(line: ImportLine): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if ((line.secret === undefined) === (line.secret_sha256 === undefined)) {
    issues.push({
      path: line.secret === undefined ? "/secret" : "/secret_sha256",
      message: "give exactly one of secret (the plaintext) and secret_sha256 (its hex SHA-256)",
    });
  }
  return issues;
}
