import type { AuditEntry } from "../domain/audit.js";
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
  /** Whether the platform has the connection's organization disabled (read with the token). */
  organizationDisabled?: boolean;
}

/** Persistence of OAuth clients, codes and connections. */
export interface OauthStore {
  insertClient(client: OauthClient): Promise<void>;
  findClient(clientId: string): Promise<OauthClient | undefined>;
  insertCode(code: OauthCode): Promise<void>;
  /** Marks the code used and returns it as it was before; a code used before comes back with `usedAt` set. */
  takeCode(codeHash: string, at: number): Promise<OauthCode | undefined>;
  insertConnection(connection: McpConnection, audit: AuditEntry): Promise<void>;
  findConnectionByAccess(accessHash: string): Promise<McpConnection | undefined>;
  findConnectionByRefresh(refreshHash: string): Promise<McpConnection | undefined>;
  /** Replaces both tokens of an unrevoked connection whose refresh token is `refreshHash`; false otherwise. */
  rotateTokens(
    refreshHash: string,
    next: { accessHash: string; accessExpiresAt: number; refreshHash: string },
  ): Promise<boolean>;
  listConnections(orgId: string): Promise<McpConnection[]>;
  /** Revokes; false when the organization has no such connection. Revoking twice keeps the first time. */
  revokeConnection(orgId: string, id: string, at: number, audit: AuditEntry): Promise<boolean>;
}
