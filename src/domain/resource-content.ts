import { LatchkeyError, type ValidationIssue } from "./errors.js";
import { MAX_SETTINGS_BYTES, type ResourceContent } from "./resource-schemas.js";

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
 * The rules JSON Schema cannot state: a name of only white space is refused (unlike keys, records have
 * no default name), and `settings` is measured as the UTF-8 bytes of its JSON text.
 */
export function resolveResourceContent(content: ResourceContent): ResolvedResourceContent {
  const issues: ValidationIssue[] = [];
  if (content.name.trim() === "") issues.push({ path: "/name", message: "must not be blank" });
  const settings = content.settings ?? {};
  const bytes = Buffer.byteLength(JSON.stringify(settings), "utf8");
  if (bytes > MAX_SETTINGS_BYTES) {
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
