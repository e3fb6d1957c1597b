import { LatchkeyError, type ValidationIssue } from "./errors.js";
import { MAX_SETTINGS_BYTES, MAX_SETTINGS_DEPTH, type ResourceContent } from "./resource-schemas.js";

/** A record's content with every default applied; an update replaces all of it. */
export interface ResolvedResourceContent {
  /** Display name, 1..255 characters, not blank. */
  name: string;
  /** Whether the record is enabled (`disabled` omitted means enabled). */
  enabled: boolean;
  /** The settings object (`{}` when omitted). */
  settings: Record<string, unknown>;
}

/**
 * Whether objects and arrays nest deeper than `max` levels (the settings object itself is level 1).
 * Iterative on purpose: a body of `[[[[...]]]]` fits 30,000 levels in 64 KiB, and anything recursive
 * (JSON.stringify included) would overflow the stack on it and answer 500 instead of 400.
 */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [current, depth] = next;
    if (typeof current !== "object" || current === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * The rules JSON Schema cannot state: a name of only white space is refused (unlike keys, records have
 * no default name), `settings` is measured as the UTF-8 bytes of its JSON text, and its nesting is bounded.
 */
export function resolveResourceContent(content: ResourceContent): ResolvedResourceContent {
  const issues: ValidationIssue[] = [];
  if (content.name.trim() === "") issues.push({ path: "/name", message: "must not be blank" });
  // PostgreSQL text cannot hold NUL, and a lone surrogate would be stored as U+FFFD: refuse both
  // rather than fail with a 500 or silently store another name. (In settings, JSON escapes them.)
  // eslint-disable-next-line no-control-regex -- matching NUL is the point.
  if (/[\u0000\p{Cs}]/u.test(content.name)) {
    issues.push({ path: "/name", message: "must not contain NUL characters or lone surrogates" });
  }
  const settings = content.settings ?? {};
  const tooDeep = nestsDeeperThan(settings, MAX_SETTINGS_DEPTH);
  const bytes = tooDeep ? 0 : Buffer.byteLength(JSON.stringify(settings), "utf8");
  if (tooDeep) {
    issues.push({
      path: "/settings",
      message: `must not nest objects and arrays over ${MAX_SETTINGS_DEPTH} levels deep`,
    });
  } else if (bytes > MAX_SETTINGS_BYTES) {
    issues.push({
      path: "/settings",
      message: `must be at most ${MAX_SETTINGS_BYTES} bytes as JSON (this one is ${bytes})`,
    });
  }
  if (issues.length > 0) {
    const summary = issues.map((issue) => `${issue.path} ${issue.message}`).join("; ");
    throw new LatchkeyError("invalid_request", `Invalid request: ${summary}.`, { validationErrors: issues });
  }
  return { name: content.name, enabled: !(content.disabled ?? false), settings };
}
