import type { ValidationIssue } from "./errors.js";

/** Members one key's `metadata` may hold. */
export const MAX_METADATA_MEMBERS = 20;
/** Longest metadata value, in characters (code points). */
export const MAX_METADATA_VALUE_LENGTH = 500;
/** A member name: 1 to 40 letters, digits, `_`, `.` or `-`, so it fits a query's `metadata[<name>]`. */
export const METADATA_NAME = /^[A-Za-z0-9_.-]{1,40}$/;

/** A key's metadata: string members, searched with the list's `metadata[<name>]=<value>` filters. */
export type KeyMetadata = Readonly<Record<string, string>>;

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/** The issues of a `metadata` object, each naming its member (`/metadata/team`). */
export function metadataIssues(metadata: Record<string, unknown>, path = "/metadata"): ValidationIssue[] {
  const names = Object.keys(metadata);
  if (names.length > MAX_METADATA_MEMBERS) {
    return [{ path, message: `must have at most ${MAX_METADATA_MEMBERS} members (it has ${names.length})` }];
  }
  const issues: ValidationIssue[] = [];
  for (const name of names) {
    const at = `${path}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    const value = metadata[name];
    if (!METADATA_NAME.test(name)) {
      issues.push({
        path: at,
        message: `is not a valid member name: use 1 to 40 letters, digits, '_', '.' or '-'`,
      });
    } else if (typeof value !== "string") {
      issues.push({ path: at, message: "must be a string" });
    } else if (codePointLength(value) > MAX_METADATA_VALUE_LENGTH) {
      issues.push({ path: at, message: `must be at most ${MAX_METADATA_VALUE_LENGTH} characters` });
    }
  }
  return issues;
}
