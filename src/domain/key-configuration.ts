import { LatchkeyError, type ValidationIssue } from "./errors.js";
import { type Grant, isPermission, normalizePermissions, type Permission } from "./permissions.js";

export const MAX_NAME_LENGTH = 255;
export const MAX_DESCRIPTION_LENGTH = 2000;
/** Keys per organization, disabled keys included, unless an operator raises it. */
export const DEFAULT_MAX_KEYS = 100;

/** The request body of create and update: one shape for both, as the spec says. */
export interface KeyConfigurationInput {
  name?: string | null | undefined;
  description?: string | null | undefined;
  disabled?: boolean | undefined;
  permissions: readonly string[];
  all_future_permissions?: boolean | undefined;
  /** latchkey's own: RFC 3339 expiry; omitted keeps it on update (docs/key-lifecycle.md). */
  expires_at?: string | null | undefined;
}

/** A complete key configuration, with every default applied. An update replaces all of it. */
export interface KeyConfiguration extends Grant {
  /** Display name; never empty (a default is derived from the creation time). */
  name: string;
  /** Purpose of the key, or null when none was given. */
  description: string | null;
  /** Whether the key can authenticate. */
  enabled: boolean;
}

function isBlank(text: string | null | undefined): text is null | undefined {
  return text == null || text.trim() === "";
}

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/** `Key created YYYY-MM-DD HH:mm:ss`, from the key's original creation time in UTC. */
export function defaultKeyName(createdAtMs: number): string {
  const iso = new Date(createdAtMs).toISOString();
  return `Key created ${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** A validated configuration whose name may still await its default (which needs the creation time). */
export interface RequestedConfiguration extends Omit<KeyConfiguration, "name"> {
  /** The given name, or null when omitted, null or blank. */
  name: string | null;
}

/**
 * Validates a create or update body and applies the spec's defaults. Omitted optional fields return to
 * their defaults, so an update that leaves out `name` resets it: the caller must resend what it keeps.
 */
export function parseKeyConfiguration(input: KeyConfigurationInput): RequestedConfiguration {
  const issues: ValidationIssue[] = [];
  if (input.name != null && codePointLength(input.name) > MAX_NAME_LENGTH) {
    issues.push({ path: "/name", message: `must be at most ${MAX_NAME_LENGTH} characters` });
  }
  if (input.description != null && codePointLength(input.description) > MAX_DESCRIPTION_LENGTH) {
    issues.push({ path: "/description", message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` });
  }
  const permissions: Permission[] = [];
  input.permissions.forEach((name, index) => {
    if (isPermission(name)) permissions.push(name);
    else issues.push({ path: `/permissions/${index}`, message: `unknown permission "${name}"` });
  });
  const allFuturePermissions = input.all_future_permissions ?? false;
  if (allFuturePermissions && input.permissions.length > 0) {
    issues.push({
      path: "/permissions",
      message: "must be an empty array when all_future_permissions is true",
    });
  }
  if (issues.length > 0) {
    const summary = issues.map((issue) => `${issue.path} ${issue.message}`).join("; ");
    throw new LatchkeyError("invalid_request", `Invalid key configuration: ${summary}.`, {
      validationErrors: issues,
    });
  }
  return {
    name: isBlank(input.name) ? null : input.name,
    description: isBlank(input.description) ? null : input.description,
    enabled: !(input.disabled ?? false),
    permissions: normalizePermissions(permissions),
    allFuturePermissions,
  };
}

/** Completes a requested configuration with the default name built from the key's creation time. */
export function withDefaultName(requested: RequestedConfiguration, createdAtMs: number): KeyConfiguration {
  return { ...requested, name: requested.name ?? defaultKeyName(createdAtMs) };
}
