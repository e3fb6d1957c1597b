import { configurationOf, type KeyConfiguration, type KeyRecord } from "@latchkey/client";
import { UsageError } from "./exit-codes.js";
import { rateLimitFlags, updatedRateLimits } from "./keys-rate-limit-flags.js";

/** Flags of `keys create`. */
export interface CreateFlags {
  name?: string;
  description?: string;
  permission: string[];
  allFuture?: boolean;
  disabled?: boolean;
  /** `--allowed-cidr`, repeatable: the networks the key may be used from. */
  allowedCidr?: string[];
  /** `--metadata name=value`, repeatable. */
  metadata?: string[];
  /** RFC 3339 expiry. */
  expiresAt?: string;
  /** `--rate-limit group=quota/seconds,...`, repeatable: the key's own windows. */
  rateLimit?: string[];
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
  /** `--allowed-cidr`, repeatable: replaces the key's networks. */
  allowedCidr?: string[];
  /** `--any-address`: the key may be used from anywhere again. */
  anyAddress?: boolean;
  /** `--metadata name=value`, repeatable: sets these members, keeping the others. */
  metadata?: string[];
  /** `--remove-metadata name`, repeatable. */
  removeMetadata?: string[];
  /** Brings the expiry forward (RFC 3339). */
  expiresAt?: string;
  /** `--rate-limit group=quota/seconds,...`, repeatable: sets those groups' own windows. */
  rateLimit?: string[];
  /** `--remove-rate-limit group`, repeatable. */
  removeRateLimit?: string[];
}

/** `--metadata team=billing` (repeatable) as an object; the server checks names and values. */
export function metadataFlags(pairs: readonly string[]): Record<string, string> {
  const members: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    if (equals <= 0) throw new UsageError(`--metadata takes name=value, not "${pair}".`);
    members[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return members;
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
    ...(flags.allowedCidr !== undefined ? { allowed_cidrs: flags.allowedCidr } : {}),
    ...(flags.metadata !== undefined ? { metadata: metadataFlags(flags.metadata) } : {}),
    ...(flags.expiresAt !== undefined ? { expires_at: flags.expiresAt } : {}),
    ...(flags.rateLimit !== undefined ? { rate_limits: rateLimitFlags(flags.rateLimit) } : {}),
  };
}

/**
 * The networks and metadata members of `keys update`, only when a flag changes them: the server keeps
 * what an update leaves out. `--metadata` and `--remove-metadata` edit the key's current members.
 */
function networksAndMetadataOf(current: KeyRecord, flags: UpdateFlags): Partial<KeyConfiguration> {
  if (flags.anyAddress && flags.allowedCidr !== undefined) {
    throw new UsageError("--any-address and --allowed-cidr contradict each other.");
  }
  const changes: Partial<KeyConfiguration> = {};
  if (flags.anyAddress) changes.allowed_cidrs = null;
  if (flags.allowedCidr !== undefined) changes.allowed_cidrs = flags.allowedCidr;
  if (flags.metadata !== undefined || flags.removeMetadata !== undefined) {
    const members = { ...current.metadata, ...metadataFlags(flags.metadata ?? []) };
    for (const name of flags.removeMetadata ?? []) delete members[name];
    changes.metadata = Object.keys(members).length === 0 ? null : members;
  }
  return changes;
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
    flags.allowedCidr,
    flags.anyAddress,
    flags.metadata,
    flags.removeMetadata,
    flags.expiresAt,
    flags.rateLimit,
    flags.removeRateLimit,
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
    ...networksAndMetadataOf(current, flags),
    ...updatedRateLimits(current.rate_limits, flags.rateLimit, flags.removeRateLimit),
    // Omitted, the server keeps the expiry; given, it may only come forward.
    ...(flags.expiresAt !== undefined ? { expires_at: flags.expiresAt } : {}),
  };
}
