import type { KeyRateLimits } from "@latchkey/client";
import { UsageError } from "./exit-codes.js";
import { parseWindows } from "./rate-limit-windows.js";

/**
 * `--rate-limit thumbnails=5/60,500/3600` (repeatable): a key's own windows in a group counted per key,
 * each `<quota>/<window seconds>`. The server checks the group and that they stay within the
 * organization's policy (docs/rate-limits.md).
 */
export function rateLimitFlags(entries: readonly string[]): KeyRateLimits {
  const limits: KeyRateLimits = {};
  for (const entry of entries) {
    const equals = entry.indexOf("=");
    const policies = parseWindows(entry.slice(equals + 1));
    if (equals <= 0 || policies === undefined) {
      throw new UsageError(
        `--rate-limit takes <group>=<quota>/<seconds>[,<quota>/<seconds>...], not "${entry}".`,
      );
    }
    limits[entry.slice(0, equals)] = { policies };
  }
  return limits;
}

/**
 * The `rate_limits` member of `keys update`, only when a flag changes it (the server keeps what an
 * update leaves out): `--rate-limit` sets those groups, keeping the others; `--remove-rate-limit` drops one.
 */
export function updatedRateLimits(
  current: KeyRateLimits | undefined,
  set: readonly string[] | undefined,
  remove: readonly string[] | undefined,
): { rate_limits?: KeyRateLimits | null } {
  if (set === undefined && remove === undefined) return {};
  const limits = { ...current, ...rateLimitFlags(set ?? []) };
  for (const group of remove ?? []) delete limits[group];
  return { rate_limits: Object.keys(limits).length === 0 ? null : limits };
}
