import { createHash, randomBytes } from "node:crypto";
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Clock } from "../domain/clock.js";
import { userActor } from "../domain/console-roles.js";
import { randomBase62, type SecretHasher } from "../domain/credentials.js";
import { organizationDisabled } from "../domain/organization-state.js";
import { LatchkeyError } from "../domain/errors.js";
import {
  isPermission,
  normalizePermissions,
  PERMISSION_CATALOGUE,
  type Permission,
} from "../domain/permissions.js";
import type { McpConnection, OauthClient, OauthStore } from "../store/oauth-store.js";
import { newAuditId } from "./audit-trail.js";

/** Access tokens live an hour; refresh tokens until used (each use replaces both) or revoked. */
export const ACCESS_TOKEN_SECONDS = 3600;
const CODE_MS = 10 * 60_000;

/**
 * What a connection may be granted: the resource families and usage, never keys, audit, webhooks (an
 * endpoint's create answers its signing secret) or all-future.
 */
export const CONNECTION_PERMISSIONS: readonly Permission[] = PERMISSION_CATALOGUE.filter(
  (p) => !p.startsWith("api_keys:") && !p.startsWith("webhooks:") && p !== "audit:read",
);

/** An OAuth error, answered as `{error, error_description}` (RFC 6749, section 5.2). */
export class OauthError extends Error {
  constructor(
    readonly error: string,
    description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

const base64urlSha256 = (text: string) => createHash("sha256").update(text).digest("base64url");

/** A redirect URI a client may register: https anywhere, http only on the loopback (native apps, RFC 8252). */
function acceptableRedirect(uri: string): boolean {
  try {
    const url = new URL(uri);
    if (url.hash) return false;
    if (url.protocol === "https:") return true;
    return url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  } catch {
    return false;
  }
}

/** A validated authorization request, ready for the consent page. */
export interface AuthorizationRequest {
  client: OauthClient;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  state: string | undefined;
}

export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export function createMcpOauth(deps: { store: OauthStore; hasher: SecretHasher; clock: Clock }) {
  const { store, hasher, clock } = deps;

  function newTokens() {
    const access = `lkat_${randomBase62(40)}`;
    const refresh = `lkrt_${randomBase62(40)}`;
    return { access, refresh, accessHash: hasher.hash(access), refreshHash: hasher.hash(refresh) };
  }

  const answer = (
    tokens: { access: string; refresh: string },
    permissions: readonly Permission[],
  ): TokenAnswer => ({
    access_token: tokens.access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: tokens.refresh,
    scope: permissions.join(" "),
  });

  return {
    /** RFC 7591: a public client (PKCE, no secret) with exact redirect URIs. */
    async register(body: unknown) {
      const parsed = OAuthClientMetadataSchema.safeParse(body);
      if (!parsed.success)
        throw new OauthError("invalid_client_metadata", "The registration is not valid client metadata.");
      const metadata = parsed.data;
      if (metadata.redirect_uris.length === 0 || !metadata.redirect_uris.every(acceptableRedirect)) {
        throw new OauthError(
          "invalid_redirect_uri",
          "redirect_uris must be https URLs, or http URLs on localhost, 127.0.0.1 or [::1], without a fragment.",
        );
      }
      if (metadata.token_endpoint_auth_method && metadata.token_endpoint_auth_method !== "none") {
        throw new OauthError(
          "invalid_client_metadata",
          "Only public clients are registered: token_endpoint_auth_method none, with PKCE.",
        );
      }
      const client: OauthClient = {
        clientId: `mcl_${randomBase62(22)}`,
        clientName: (metadata.client_name ?? "").trim().slice(0, 100) || "MCP client",
        redirectUris: metadata.redirect_uris,
        createdAt: clock.now(),
      };
      await store.insertClient(client);
      return {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(client.createdAt / 1000),
        client_name: client.clientName,
        redirect_uris: client.redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },

    /**
     * Checks an authorization request. An unknown client or an unregistered redirect URI is shown as an
     * error page, never followed (the request could come from anyone); PKCE S256 is required.
     */
    async checkAuthorization(
      query: Record<string, string | undefined>,
      canonicalResource: string,
    ): Promise<AuthorizationRequest> {
      const client = query.client_id ? await store.findClient(query.client_id) : undefined;
      if (!client)
        throw new LatchkeyError("invalid_request", "Unknown client_id: register the client first.");
      const redirectUri =
        query.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
      if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
        throw new LatchkeyError("invalid_request", "redirect_uri is not one this client registered.");
      }
      if (query.response_type !== "code")
        throw new LatchkeyError("invalid_request", "response_type must be code.");
      if (query.code_challenge_method !== "S256" || !/^[A-Za-z0-9_-]{43}$/.test(query.code_challenge ?? "")) {
        throw new LatchkeyError(
          "invalid_request",
          "PKCE is required: code_challenge with code_challenge_method S256.",
        );
      }
      const resource = query.resource ?? canonicalResource;
      if (resource !== canonicalResource) {
        throw new LatchkeyError(
          "invalid_request",
          `resource must be ${canonicalResource}, this server's MCP endpoint.`,
        );
      }
      return { client, redirectUri, codeChallenge: query.code_challenge ?? "", resource, state: query.state };
    },

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
      await store.insertCode({
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
      });
      return code;
    },

    /** `grant_type=authorization_code`: the code once, with its verifier, redirect URI and resource. */
    async exchangeCode(form: URLSearchParams): Promise<TokenAnswer> {
      const now = clock.now();
      const code = await store.takeCode(hasher.hash(form.get("code") ?? ""), now);
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
        accessExpiresAt: now + ACCESS_TOKEN_SECONDS * 1000,
        refreshHash: tokens.refreshHash,
        createdAt: now,
        revokedAt: null,
      };
      await store.insertConnection(connection, {
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
      return answer(tokens, connection.permissions);
    },

    /** `grant_type=refresh_token`: both tokens replaced; the old refresh token is refused from then on. */
    async refresh(form: URLSearchParams): Promise<TokenAnswer> {
      const refreshHash = hasher.hash(form.get("refresh_token") ?? "");
      const connection = await store.findConnectionByRefresh(refreshHash);
      if (!connection || connection.revokedAt !== null || connection.clientId !== form.get("client_id")) {
        throw new OauthError("invalid_grant", "The refresh token is unknown, revoked or already used.");
      }
      const resource = form.get("resource");
      if (resource !== null && resource !== connection.resource)
        throw new OauthError("invalid_target", "The token was issued for another resource.");
      const tokens = newTokens();
      const rotated = await store.rotateTokens(refreshHash, {
        accessHash: tokens.accessHash,
        accessExpiresAt: clock.now() + ACCESS_TOKEN_SECONDS * 1000,
        refreshHash: tokens.refreshHash,
      });
      if (!rotated)
        throw new OauthError("invalid_grant", "The refresh token is unknown, revoked or already used.");
      return answer(tokens, connection.permissions);
    },

    /** The connection a Bearer token belongs to, when it is current, unrevoked and for `resource`. */
    async authenticate(token: string, resource: string): Promise<McpConnection | undefined> {
      if (!/^lkat_[0-9A-Za-z]{40}$/.test(token)) return undefined;
      const connection = await store.findConnectionByAccess(hasher.hash(token));
      if (!connection || connection.revokedAt !== null || connection.accessExpiresAt <= clock.now())
        return undefined;
      if (connection.resource !== resource) return undefined;
      // A valid token of a disabled organization: told so (403), not sent through sign-in again.
      if (connection.organizationDisabled) throw organizationDisabled();
      return connection;
    },

    list: (orgId: string) => store.listConnections(orgId),

    async revoke(orgId: string, id: string, actor: string) {
      const now = clock.now();
      const done = await store.revokeConnection(orgId, id, now, {
        id: newAuditId(now),
        at: now,
        actor,
        orgId,
        action: "mcp_connection.revoke",
        targetId: id,
        before: null,
        after: { id, revoked: true },
      });
      if (!done) throw new LatchkeyError("not_found", `No MCP connection "${id}" in this organization.`);
    },
  };
}

export type McpOauth = ReturnType<typeof createMcpOauth>;
