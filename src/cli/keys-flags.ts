import { configurationOf, type KeyConfiguration, type KeyRecord } from "@latchkey/client";
import { UsageError } from "./exit-codes.js";

/** Flags of `keys create`. */
export interface CreateFlags {
  name?: string;
  description?: string;
  permission: string[];
  allFuture?: boolean;
  disabled?: boolean;
  /** RFC 3339 expiry. */
  expiresAt?: string;
}

/** Flags of `keys update`; every one is optional and only the given ones change anything. */
export interface UpdateFlags {
  name?: string;
  description?: string;
  permission?: string[];
  addPermission?: string[];
  removePermission?: string[];
  /** `--all-future` true, `--no-all-future` false, neither undefined. */
  allFuture?: boolean;
  disabled?: boolean;
  enabled?: boolean;
  /** Brings the expiry forward (RFC 3339). */
  expiresAt?: string;
}

/**
 * The body of `keys create`. A key without any permission is refused here: keys are never removed and
 * count toward the quota forever, so a forgotten `--permission` would waste a slot.
 */
export function createConfiguration(flags: CreateFlags): KeyConfiguration {
  if (flags.allFuture && flags.permission.length > 0) {
    throw new UsageError("--all-future already grants every permission; leave out --permission.");
  }
  if (!flags.allFuture && flags.permission.length === 0) {
    throw new UsageError("Give at least one --permission, or --all-future.");
  }
  return {
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(flags.description !== undefined ? { description: flags.description } : {}),
    disabled: flags.disabled ?? false,
    permissions: flags.allFuture ? [] : flags.permission,
    all_future_permissions: flags.allFuture ?? false,
    ...(flags.expiresAt !== undefined ? { expires_at: flags.expiresAt } : {}),
  };
}

/**
 * The body of `keys update`: the key's current configuration with the given flags applied. The server
 * replaces the whole configuration on update, so starting from the current one is what keeps the
 * fields a person did not mention. `--no-all-future` without `--permission` keeps what the key can do
 * today (its current catalogue) but stops it receiving names added later.
 */
export function updatedConfiguration(current: KeyRecord, flags: UpdateFlags): KeyConfiguration {
  const touchesPermissions =
    flags.permission !== undefined ||
    flags.addPermission !== undefined ||
    flags.removePermission !== undefined;
  const changes = [
    flags.name,
    flags.description,
    flags.allFuture,
    flags.disabled,
    flags.enabled,
    flags.expiresAt,
  ];
  if (!touchesPermissions && changes.every((value) => value === undefined)) {
    throw new UsageError("Nothing to change: give at least one flag (see `latchkey keys update --help`).");
  }
  if (flags.disabled && flags.enabled)
    throw new UsageError("--disabled and --enabled contradict each other.");
  const allFuture = flags.allFuture ?? current.all_future_permissions;
  if (allFuture && touchesPermissions) {
    throw new UsageError(
      "The key has (or gets) all current and future permissions; add --no-all-future to set a list.",
    );
  }
  const removed = new Set(flags.removePermission ?? []);
  const listed = [...(flags.permission ?? current.permissions), ...(flags.addPermission ?? [])];
  const base = configurationOf(current);
  return {
    name: flags.name ?? base.name,
    description: flags.description ?? base.description,
    disabled: flags.disabled ? true : flags.enabled ? false : base.disabled,
    permissions: allFuture ? [] : [...new Set(listed)].filter((name) => !removed.has(name)),
    all_future_permissions: allFuture,
    // Omitted, the server keeps the expiry; given, it may only come forward.
    ...(flags.expiresAt !== undefined ? { expires_at: flags.expiresAt } : {}),
  };
}
