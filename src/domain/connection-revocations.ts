import type { AuditEntry } from "./audit.js";

/**
 * Why an MCP connection was revoked: the `reason` of its `mcp_connection.revoke` audit entry and the
 * label of `latchkey_oauth_connections_revoked_total`. The first six are changes to the person who
 * granted it (a connection is that person's grant in one organization); the others are the OAuth
 * rules' own (a stolen token shows itself by being used twice) and a revocation by hand.
 */
export const REVOCATION_REASONS = [
  "member_removed",
  "role_changed",
  "user_removed",
  "password_changed",
  "password_reset",
  "two_factor_reset",
  "refresh_token_reused",
  "code_reused",
  "revoked_by_user",
] as const;

export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/** The audit entry of one connection's revocation. */
export function revocationEntry(input: {
  id: string;
  at: number;
  actor: string;
  connection: { id: string; orgId: string };
  reason: RevocationReason;
}): AuditEntry {
  return {
    id: input.id,
    at: input.at,
    actor: input.actor,
    orgId: input.connection.orgId,
    action: "mcp_connection.revoke",
    targetId: input.connection.id,
    before: null,
    after: { id: input.connection.id, revoked: true, reason: input.reason },
  };
}
