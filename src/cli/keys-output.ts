import type { CreatedKey, KeyRecord } from "@latchkey/client";
import { formatTable, printable, truncate } from "./text-table.js";
import { formatWindows } from "./rate-limit-windows.js";

/** When the key was reported leaked; servers from before leak response send no `leaked_at` at all. */
function leakedAt(key: KeyRecord): string | null {
  return "leaked_at" in key && typeof key.leaked_at === "string" ? key.leaked_at : null;
}

function permissionSummary(key: KeyRecord): string {
  if (key.all_future_permissions) return "all, current and future";
  return key.permissions.length === 0 ? "(none)" : key.permissions.join(", ");
}

/** Writes a value as indented JSON, for scripts. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** The expiry for a person: never, a time, or a time that has passed. */
function expiry(key: KeyRecord): string {
  if (key.expires_at === null || key.expires_at === undefined) return "never";
  return key.expired ? `${key.expires_at} (expired)` : key.expires_at;
}

/** `thumbnails=5/60,500/3600; render=...`: a key's own windows, as `--rate-limit` takes them. */
function rateLimitSummary(limits: NonNullable<KeyRecord["rate_limits"]>): string {
  return Object.entries(limits)
    .map(([group, { policies }]) => `${group}=${formatWindows(policies)}`)
    .join("; ");
}

/** One key, as `field: value` lines for a person. */
export function formatKey(key: KeyRecord | CreatedKey): string {
  const rows: [string, string][] = [
    ["id", key.id],
    ["api_id", key.api_id],
    ...("api_key" in key ? [["api_key", key.api_key] as [string, string]] : []),
    ["name", printable(key.name)],
    ["description", key.description === null ? "(none)" : printable(key.description)],
    ["state", key.enabled ? "enabled" : "disabled"],
    ["permissions", permissionSummary(key)],
    ["networks", key.allowed_cidrs === null ? "any address" : key.allowed_cidrs.join(", ")],
    [
      "metadata",
      key.metadata === null
        ? "(none)"
        : printable(
            Object.entries(key.metadata)
              .map(([name, value]) => `${name}=${value}`)
              .join(", "),
          ),
    ],
    // Only keys with their own limits show the line, as only their records carry the member.
    ...(key.rate_limits ? [["rate limits", rateLimitSummary(key.rate_limits)] as [string, string]] : []),
    ["created_at", key.created_at],
    ["updated_at", key.updated_at],
    ["last_used_at", key.last_used_at ?? "never"],
    ...(leakedAt(key)
      ? [["leaked_at", `${leakedAt(key)} (reported public by a secret scanner)`] as [string, string]]
      : []),
    ["expires_at", expiry(key)],
    ...("previous_secret_expires_at" in key
      ? [["old secret", `works until ${String(key.previous_secret_expires_at)}`] as [string, string]]
      : []),
  ];
  return rows.map(([field, value]) => `${`${field}:`.padEnd(14)}${value}\n`).join("");
}

/** Keys as an aligned table for a person; `--json` gives the full records. */
export function formatKeyTable(keys: KeyRecord[]): string {
  const header = ["ID", "API_ID", "STATE", "NAME", "PERMISSIONS", "CREATED"];
  const rows = keys.map((key) => [
    key.id,
    key.api_id,
    (key.expired ? "expired" : key.enabled ? "enabled" : "disabled") + (leakedAt(key) ? ",leaked" : ""),
    truncate(printable(key.name), 40),
    truncate(permissionSummary(key), 60),
    key.created_at,
  ]);
  return formatTable(header, rows, `${keys.length} key${keys.length === 1 ? "" : "s"}`);
}
