import { createHash, randomBytes } from "node:crypto";
import { SYSTEM_ACTOR } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { type RevocationReason, revocationEntry } from "../domain/connection-revocations.js";
import { canManageKeys, userActor } from "../domain/console-roles.js";
import { randomBase62, type SecretHasher } from "../domain/credentials.js";
import { organizationDisabled } from "../domain/organization-state.js";
import { LatchkeyError } from "../domain/errors.js";
import {
  isPermission,
  normalizePermissions,
  PERMISSION_CATALOGUE,
  type Permission,
} from "../domain/permissions.js";
import type { RateLimiter } from "../ratelimit/rate-limiter.js";
import type { FoundConnection, McpConnection, OauthStore } from "../store/oauth-store.js";
import { newAuditId } from "./audit-trail.js";
import { type AuthorizationRequest, checkAuthorizationRequest } from "./oauth-authorization-request.js";
import { OauthError } from "./oauth-error.js";
import { createOauthRegistration } from "./oauth-registration.js";

export { OauthError } from "./oauth-error.js";
export type { AuthorizationRequest } from "./oauth-authorization-request.js";

/**
 * Access tokens live an hour; refresh tokens until used (each use replaces both), revoked, or the
 * connection's absolute lifetime (LATCHKEY_OAUTH_MAX_DAYS from consent) is over.
 */
export const ACCESS_TOKEN_SECONDS = 3600;
const CODE_MS = 10 * 60_000;
const DAY_MS = 86_400_000;

/**
 * What a connection may be granted: the resource families and usage, never keys, audit, webhooks (an
 * endpoint's create answers its signing secret) or all-future.
 */
export const CONNECTION_PERMISSIONS: readonly Permission[] = PERMISSION_CATALOGUE.filter(
  (p) => !p.startsWith("api_keys:") && !p.startsWith("webhooks:") && p !== "audit:read",
);

const base64urlSha256 = (text: string) => createHash("sha256").update(text).digest("base64url");

export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface McpOauthOptions {
  store: OauthStore;
  hasher: SecretHasher;
  clock: Clock;
  /** The exact limiter, for registrations per client address. */
  limiter: RateLimiter;
  /** Namespace of the limiter's buckets (LATCHKEY_REDIS_PREFIX). */
  namespace: string;
  /** A connection's absolute lifetime from consent, in days (LATCHKEY_OAUTH_MAX_DAYS). */
  maxDays: number;
  /** Told of each connection revoked, and why (the metric). */
  onRevoked?: (reason: RevocationReason) => void;
}

export function createMcpOauth(deps: McpOauthOptions) {
  const { store, hasher, clock } = deps;
  const maxMs = deps.maxDays * DAY_MS;
  const registration = createOauthRegistration(deps);

  /** Whether a found connection may still be used now: its user can still grant it, and it is young enough. */
  const current = (connection: FoundConnection, now: number) =>
    connection.revokedAt === null &&
    canManageKeys(connection.grantorRole) &&
    connection.createdAt + maxMs > now;

  /** Revokes a connection the OAuth rules found compromised; audited as the system's doing. */
  async function revokeFor(reason: RevocationReason, connection: { id: string; orgId: string }) {
    const now = clock.now();
    const audit = revocationEntry({ id: newAuditId(now), at: now, actor: SYSTEM_ACTOR, connection, reason });
    if ((await store.revokeConnection(connection.orgId, connection.id, now, audit)) === "revoked") {
      deps.onRevoked?.(reason);
    }
  }

  function newTokens() {
    const access = `lkat_${randomBase62(40)}`;
    const refresh = `lkrt_${randomBase62(40)}`;
    return { access, refresh, accessHash: hasher.hash(access), refreshHash: hasher.hash(refresh) };
  }

  const answer = (
    tokens: { access: string; refresh: string },
    permissions: readonly Permission[],
    lifetimeMs: number,
  ): TokenAnswer => ({
    access_token: tokens.access,
    token_type: "Bearer",
    expires_in: Math.max(1, Math.floor(lifetimeMs / 1000)),
    refresh_token: tokens.refresh,
    scope: permissions.join(" "),
  });

  return {
    register: (body: unknown, address: string) => registration.register(body, address),
    /** Deletes clients nobody consented to within a day and codes a day past their expiry. */
    sweep: () => registration.sweep(),

    /**
     * Checks an authorization request. An unknown client or an unregistered redirect URI is shown as an
     * error page, never followed (the request could come from anyone); PKCE S256 is required.
     */
    checkAuthorization: (query: Record<string, string | undefined>, canonicalResource: string) =>
      checkAuthorizationRequest(store, query, canonicalResource),

    /** After consent: a code for the client's redirect, good for ten minutes and one exchange. */
    async issueCode(
      request: AuthorizationRequest,
      grant: { userId: string; orgId: string; permissions: string[] },
    ) {
      const unknown = grant.permissions.filter(
        (p) => !isPermission(p) || !CONNECTION_PERMISSIONS.includes(p),
      );
      if (unknown.length > 0 || grant.permissions.length === 0) {
        throw new LatchkeyError(
          "invalid_request",
          "Pick at least one permission, among the families and usage.",
        );
      }
      const code = randomBytes(32).toString("base64url");
      await store.insertCode(
        {
          codeHash: hasher.hash(code),
          clientId: request.client.clientId,
          userId: grant.userId,
          orgId: grant.orgId,
          permissions: normalizePermissions(grant.permissions as Permission[]),
          redirectUri: request.redirectUri,
          codeChallenge: request.codeChallenge,
          resource: request.resource,
          expiresAt: clock.now() + CODE_MS,
          usedAt: null,
          connectionId: null,
        },
        clock.now(),
      );
      return code;
    },

    /** `grant_type=authorization_code`: the code once, with its verifier, redirect URI and resource. */
    async exchangeCode(form: URLSearchParams): Promise<TokenAnswer> {
      const now = clock.now();
      const codeHash = hasher.hash(form.get("code") ?? "");
      const code = await store.takeCode(codeHash, now);
      // A code used twice was seen by someone else: what its first use issued is revoked (RFC 9700).
      if (code?.usedAt != null && code.connectionId !== null) {
        await revokeFor("code_reused", { id: code.connectionId, orgId: code.orgId });
      }
      if (!code || code.usedAt !== null || code.expiresAt <= now) {
        throw new OauthError("invalid_grant", "The code is unknown, expired or already used.");
      }
      if (code.clientId !== form.get("client_id"))
        throw new OauthError("invalid_grant", "The code was issued to another client.");
      if (code.redirectUri !== form.get("redirect_uri"))
        throw new OauthError("invalid_grant", "redirect_uri differs from the authorization request's.");
      if (base64urlSha256(form.get("code_verifier") ?? "") !== code.codeChallenge) {
        throw new OauthError("invalid_grant", "code_verifier does not match the code_challenge.");
      }
      const resource = form.get("resource");
      if (resource !== null && resource !== code.resource)
        throw new OauthError("invalid_target", "The code was issued for another resource.");
      const client = await store.findClient(code.clientId);
      const tokens = newTokens();
      const connection: McpConnection = {
        id: `mcc_${randomBase62(22)}`,
        orgId: code.orgId,
        userId: code.userId,
        clientId: code.clientId,
        clientName: client?.clientName ?? "MCP client",
        permissions: code.permissions,
        resource: code.resource,
        accessHash: tokens.accessHash,
        accessExpiresAt: now + Math.min(ACCESS_TOKEN_SECONDS * 1000, maxMs),
        refreshHash: tokens.refreshHash,
        createdAt: now,
        revokedAt: null,
      };
      const inserted = await store.insertConnection(connection, codeHash, canManageKeys, {
        id: newAuditId(now),
        at: now,
        actor: userActor(code.userId),
        orgId: code.orgId,
        action: "mcp_connection.create",
        targetId: connection.id,
        before: null,
        after: {
          id: connection.id,
          client_name: connection.clientName,
          permissions: [...connection.permissions],
        },
      });
      // The user lost the role (or the membership) between consent and exchange.
      if (!inserted) {
        throw new OauthError("invalid_grant", "The user who consented can no longer grant this connection.");
      }
      return answer(tokens, connection.permissions, connection.accessExpiresAt - now);
    },

    /** `grant_type=refresh_token`: both tokens replaced; the old refresh token is refused from then on. */
    async refresh(form: URLSearchParams): Promise<TokenAnswer> {
      const now = clock.now();
      const refreshHash = hasher.hash(form.get("refresh_token") ?? "");
      const connection = await store.findConnectionByRefresh(refreshHash);
      if (!connection) {
        // A rotated token presented again: two parties hold the connection's tokens, and the server
        // cannot tell which is the thief, so the whole connection ends (RFC 9700, section 4.14.2).
        const rotated = await store.findRotatedRefresh(refreshHash);
        if (rotated)
          await revokeFor("refresh_token_reused", { id: rotated.connectionId, orgId: rotated.orgId });
      }
      if (!connection || !current(connection, now) || connection.clientId !== form.get("client_id")) {
        throw new OauthError(
          "invalid_grant",
          "The refresh token is unknown, revoked, already used or past the connection's lifetime.",
        );
      }
      const resource = form.get("resource");
      if (resource !== null && resource !== connection.resource)
        throw new OauthError("invalid_target", "The token was issued for another resource.");
      const tokens = newTokens();
      // The last access token ends with the connection's lifetime, not after it.
      const accessExpiresAt = Math.min(now + ACCESS_TOKEN_SECONDS * 1000, connection.createdAt + maxMs);
      const rotated = await store.rotateTokens(
        refreshHash,
        { accessHash: tokens.accessHash, accessExpiresAt, refreshHash: tokens.refreshHash },
        now,
      );
      if (!rotated)
        throw new OauthError("invalid_grant", "The refresh token is unknown, revoked or already used.");
      return answer(tokens, connection.permissions, accessExpiresAt - now);
    },

    /** The connection a Bearer token belongs to, when it is current, unrevoked and for `resource`. */
    async authenticate(token: string, resource: string): Promise<McpConnection | undefined> {
      if (!/^lkat_[0-9A-Za-z]{40}$/.test(token)) return undefined;
      const connection = await store.findConnectionByAccess(hasher.hash(token));
      const now = clock.now();
      // The user's standing is read with the token on every request: removed or demoted, refused now.
      if (!connection || !current(connection, now) || connection.accessExpiresAt <= now) return undefined;
      if (connection.resource !== resource) return undefined;
      // A valid token of a disabled organization: told so (403), not sent through sign-in again.
      if (connection.organizationDisabled) throw organizationDisabled();
      return connection;
    },

    list: (orgId: string) => store.listConnections(orgId),

    async revoke(orgId: string, id: string, actor: string) {
      const now = clock.now();
      const connection = { id, orgId };
      const reason = "revoked_by_user";
      const audit = revocationEntry({ id: newAuditId(now), at: now, actor, connection, reason });
      const outcome = await store.revokeConnection(orgId, id, now, audit);
      if (outcome === "absent")
        throw new LatchkeyError("not_found", `No MCP connection "${id}" in this organization.`);
      if (outcome === "revoked") deps.onRevoked?.(reason);
    },
  };
}

export type McpOauth = ReturnType<typeof createMcpOauth>;
