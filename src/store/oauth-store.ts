import type { AuditEntry } from "../domain/audit.js";
import type { ConsoleRole } from "../domain/console-roles.js";
import type { Permission } from "../domain/permissions.js";

/** A dynamically registered client (a public client: PKCE, no secret). */
export interface OauthClient {
  /** `mcl_...`. */
  clientId: string;
  clientName: string;
  /** Exact redirect URIs; an authorization request must name one of them. */
  redirectUris: string[];
  createdAt: number;
}

/** An authorization code as stored: only its hash, for ten minutes, for one exchange. */
export interface OauthCode {
  codeHash: string;
  clientId: string;
  userId: string;
  orgId: string;
  permissions: Permission[];
  redirectUri: string;
  /** BASE64URL(SHA-256(code_verifier)). */
  codeChallenge: string;
  /** The resource indicator (RFC 8707) the tokens will be good for. */
  resource: string;
  expiresAt: number;
  usedAt: number | null;
  /** The connection the code's one exchange created; a second exchange revokes it. */
  connectionId: string | null;
}

/** What a user granted one client in one organization; revocable in the console. */
export interface McpConnection {
  /** `mcc_...`; the audit trail's actor for what the connection does. */
  id: string;
  orgId: string;
  userId: string;
  clientId: string;
  clientName: string;
  /** Family and usage permissions only, never api_keys:* or all-future. */
  permissions: Permission[];
  resource: string;
  accessHash: string;
  accessExpiresAt: number;
  refreshHash: string;
  createdAt: number;
  revokedAt: number | null;
}

/**
 * A connection found by one of its tokens, with what decides whether it may still be used: its
 * organization's state and the role its user holds there now (a connection without the membership
 * does not exist: the foreign key removes it).
 */
export interface FoundConnection extends McpConnection {
  /** Whether the platform has the connection's organization disabled. */
  organizationDisabled: boolean;
  /** The role the granting user holds in the organization now. */
  grantorRole: ConsoleRole;
}

/** What revoking one connection did: revoked it now, found it revoked already, or found nothing. */
export type RevokeOutcome = "revoked" | "unchanged" | "absent";

/** Persistence of OAuth clients, codes and connections. */
export interface OauthStore {
  insertClient(client: OauthClient): Promise<void>;
  findClient(clientId: string): Promise<OauthClient | undefined>;
  /** Stores a code and marks its client consented to (so the sweep of unconsented clients keeps it). */
  insertCode(code: OauthCode, at: number): Promise<void>;
  /** Marks the code used and returns it as it was before; a code used before comes back with `usedAt` set. */
  takeCode(codeHash: string, at: number): Promise<OauthCode | undefined>;
  /**
   * Stores the connection a code's exchange created and names it on the code (`codeHash`), when its
   * user still holds a role `mayGrant` accepts in its organization; false (nothing written) otherwise.
   */
  insertConnection(
    connection: McpConnection,
    codeHash: string,
    mayGrant: (role: ConsoleRole) => boolean,
    audit: AuditEntry,
  ): Promise<boolean>;
  findConnectionByAccess(accessHash: string): Promise<FoundConnection | undefined>;
  findConnectionByRefresh(refreshHash: string): Promise<FoundConnection | undefined>;
  /** The connection whose refresh token `refreshHash` was, before a rotation replaced it. */
  findRotatedRefresh(refreshHash: string): Promise<{ connectionId: string; orgId: string } | undefined>;
  /**
   * Replaces both tokens of an unrevoked connection whose refresh token is `refreshHash`, and remembers
   * the replaced one; false otherwise.
   */
  rotateTokens(
    refreshHash: string,
    next: { accessHash: string; accessExpiresAt: number; refreshHash: string },
    at: number,
  ): Promise<boolean>;
  listConnections(orgId: string): Promise<McpConnection[]>;
  /** Revokes, with the audit entry when it revokes now; revoking twice keeps the first time. */
  revokeConnection(orgId: string, id: string, at: number, audit: AuditEntry): Promise<RevokeOutcome>;
  /** Deletes clients registered before `before` that nobody consented to; resolves how many. */
  deleteUnconsentedClients(before: number): Promise<number>;
  /** Deletes codes that expired before `before` (kept a while after, so a late replay still revokes). */
  deleteCodesExpiredBefore(before: number): Promise<number>;
}
