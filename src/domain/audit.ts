/**
 * The audit trail's vocabulary: who may appear as an actor, which actions are recorded, and the shape of
 * one entry. Snapshots are plain JSON built by `services/audit-snapshots.ts`, which never copies a
 * secret or a hash into them.
 */

/** The CLI, run beside the database by the operator. */
export const OPERATOR_ACTOR = "operator";
/** The first start of the server over an empty database. */
export const BOOTSTRAP_ACTOR = "bootstrap";
/** latchkey itself, recording what time did (a key's expiry). */
export const SYSTEM_ACTOR = "system";

/** The platform's code, through the provisioning API with this service token. */
export function serviceTokenActor(tokenId: string): string {
  return `service_token:${tokenId}`;
}

export const AUDIT_ACTIONS = [
  "organization.create",
  "organization.update",
  "credit_grant.create",
  "rate_limit_group.update",
  "organization.limits.update",
  "plan.update",
  "api_key.create",
  "api_key.update",
  "api_key.disable",
  "api_key.import",
  "key.leaked",
  "api_key.roll",
  "key.expired",
  "service_token.create",
  "service_token.revoke",
  "proxy.create",
  "proxy.update",
  "proxy.delete",
  "storage_destination.create",
  "storage_destination.update",
  "storage_destination.delete",
  "og_config.create",
  "og_config.update",
  "og_config.delete",
  "user.create",
  "user.remove",
  "user.password.update",
  "user.two_factor.update",
  "membership.create",
  "membership.update",
  "membership.remove",
  "membership.invite",
  "membership.invitation_accept",
  "membership.invitation_remove",
  "mcp_connection.create",
  "mcp_connection.revoke",
  "webhook_endpoint.create",
  "webhook_endpoint.update",
  "webhook_endpoint.delete",
  "webhook_endpoint.rotate_secret",
  "webhook_endpoint.test",
  "webhook_message.resend",
] as const;

/** One recorded action. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** A JSON object describing a record before or after a change, free of secrets and hashes. */
export type AuditSnapshot = Record<string, unknown>;

/** One entry of the audit trail. */
export interface AuditEntry {
  /** `aud_...` identifier. */
  id: string;
  /** Epoch milliseconds of the change. */
  at: number;
  /**
   * The key id (`key_...`) that made the change, `user:<usr_...>` (a console user),
   * `service_token:<stk_...>` (the platform, through `/v1/admin`), or `operator` (CLI), or `bootstrap`
   * (first start).
   */
  actor: string;
  /** The organization the change belongs to; null for deployment-wide things (service tokens). */
  orgId: string | null;
  /** What was done, e.g. `api_key.create`. */
  action: AuditAction;
  /** The id of the record changed (`key_...`, `org_...`, `stk_...`, `usr_...`, `whe_...`, `msg_...`). */
  targetId: string;
  /** The record before the change; null for a creation. */
  before: AuditSnapshot | null;
  /** The record after the change; null for a deletion. */
  after: AuditSnapshot | null;
}

/**
 * Builds the audit entry of a change from the record before (undefined for a creation) and after it
 * (undefined for a deletion).
 * Stores call it inside the change's own transaction and write the entry there, so that a refused or
 * failed change records nothing and a committed change is never missing from the trail.
 */
export type AuditOf<T> = (before: T | undefined, after: T | undefined) => AuditEntry;
