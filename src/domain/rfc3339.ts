import { invalidRequest } from "./errors.js";

// RFC 3339 with an explicit offset or Z, so that no local time zone sneaks in.
const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** Epoch milliseconds of an RFC 3339 time, or undefined when `value` is not one. */
export function parseRfc3339(value: string): number | undefined {
  const ms = RFC_3339.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** Like parseRfc3339, but a bad value is a 400 naming `path` (a query parameter, say). */
export function requireRfc3339(value: string, path: string): number {
  const ms = parseRfc3339(value);
  if (ms === undefined) {
    throw invalidRequest(`"${value}" is not an RFC 3339 time such as 2026-11-22T10:00:00Z.`, path);
  }
  return ms;
}
