import type { Grant } from "./permissions.js";

/**
 * Roles of console users in an organization: `owner` does everything, members included; `admin`
 * manages keys and webhooks and reads usage, limits and the audit trail; `member` only reads (and
 * sees no webhooks).
 */
export const CONSOLE_ROLES = ["owner", "admin", "member"] as const;

export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

export function isConsoleRole(value: string): value is ConsoleRole {
  return (CONSOLE_ROLES as readonly string[]).includes(value);
}

/** Whether the role may create, edit and disable keys. */
export function canManageKeys(role: ConsoleRole): boolean {
  return role === "owner" || role === "admin";
}

/**
 * Whether the role may see and change the organization's webhook endpoints: their URLs say where the
 * organization's events go and their attempts hold receivers' answers, so members see none of it.
 */
export function canManageWebhooks(role: ConsoleRole): boolean {
  return role === "owner" || role === "admin";
}

/** Whether the role may see and change the organization's members. */
export function canManageMembers(role: ConsoleRole): boolean {
  return role === "owner";
}

/**
 * The authority a console user acts with when the role manages keys: the dashboard's users are the
 * organization's administrators, so they may grant anything, all-future permissions included.
 */
export const KEY_MANAGER_GRANT: Grant = { permissions: [], allFuturePermissions: true };

/** The audit trail's actor for a console user. */
export function userActor(userId: string): string {
  return `user:${userId}`;
}
