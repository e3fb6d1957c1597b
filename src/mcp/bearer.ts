import type { FastifyReply, FastifyRequest } from "fastify";
import { LatchkeyError } from "../domain/errors.js";
import { errorBody } from "../http/error-handler.js";
import { mcpResourceOf, originOf } from "../oauth/routes.js";
import type { McpOauth } from "../services/mcp-oauth.js";
import type { McpConnection } from "../store/oauth-store.js";
import type { ApiKeyRecord } from "../store/key-store.js";

/**
 * A connection as the caller the access decision and the tools expect: its organization and
 * permissions, never all-future, its id (`mcc_...`) as the audit trail's actor. It counts against the
 * organization's groups like a key.
 */
export function connectionCaller(connection: McpConnection): ApiKeyRecord {
  return {
    id: connection.id,
    orgId: connection.orgId,
    apiId: connection.id,
    secretHash: "",
    secretScheme: "server",
    name: connection.clientName,
    description: null,
    enabled: true,
    permissions: connection.permissions,
    allFuturePermissions: false,
    createdAt: connection.createdAt,
    updatedAt: connection.createdAt,
    lastUsedAt: null,
    // The token's own hour is its expiry (checked before this record is made); there is no secret to roll.
    expiresAt: null,
    previousSecretHash: null,
    previousSecretScheme: "server",
    previousSecretExpiresAt: null,
    leakedAt: null,
    // Networks limit keys; a connection is a person's grant, signed in through the console.
    allowedCidrs: null,
    metadata: null,
  };
}

/** The 401's message on `/mcp`, where both kinds of credentials are taken. */
function mcpUnauthorized(invalidToken: boolean): LatchkeyError {
  return new LatchkeyError(
    "unauthorized",
    `${invalidToken ? "This Bearer token is unknown, expired or revoked. " : "Authentication required. "}` +
      "Send an OAuth access token (Authorization: Bearer; MCP clients find how at " +
      "/.well-known/oauth-protected-resource), or a valid, enabled api_id and api_key with HTTP Basic.",
  );
}

/**
 * The 401 of `/mcp`: a Bearer challenge naming the protected-resource metadata (how MCP clients find
 * the OAuth flow), then Basic for the clients that send key credentials; the message names both.
 */
export function sendMcpChallenge(
  request: FastifyRequest,
  reply: FastifyReply,
  invalidToken: boolean,
): FastifyReply {
  const metadata = `${originOf(request)}/.well-known/oauth-protected-resource`;
  const bearer = `Bearer resource_metadata="${metadata}"${invalidToken ? ', error="invalid_token"' : ""}`;
  reply.header("WWW-Authenticate", [bearer, 'Basic realm="latchkey", charset="UTF-8"']);
  return reply.code(401).send(errorBody(mcpUnauthorized(invalidToken)));
}

/** The connection of a Bearer token for this server's `/mcp`, or undefined (unknown, expired, revoked, other resource). */
export async function bearerCaller(
  request: FastifyRequest,
  oauth: McpOauth,
  token: string,
): Promise<ApiKeyRecord | undefined> {
  const connection = await oauth.authenticate(token, mcpResourceOf(request));
  return connection && connectionCaller(connection);
}
