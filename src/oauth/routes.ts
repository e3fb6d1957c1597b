import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { CONNECTION_PERMISSIONS, type McpOauth, OauthError } from "../services/mcp-oauth.js";

/** The OAuth issuer (./issuer.ts): the endpoints and the resource derive from it, never from `Host`. */
export const originOf = (request: FastifyRequest) => request.oauthIssuer;
/** The protected resource: the MCP endpoint (RFC 8707's resource indicator). */
export const mcpResourceOf = (request: FastifyRequest) => `${originOf(request)}/mcp`;

const HIDDEN = { schema: { hide: true } };
/** The largest registration body read. */
const REGISTRATION_BODY_BYTES = 64 * 1024;

function oauthFailure(reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof OauthError)) throw error;
  if (error.retryAfterSeconds !== undefined) reply.header("Retry-After", String(error.retryAfterSeconds));
  return reply
    .code(error.status)
    .header("Cache-Control", "no-store")
    .send({ error: error.error, error_description: error.message });
}

/** Browser-based MCP clients (the MCP Inspector) read the metadata and call these endpoints cross-origin. */
function allowAnyOrigin(reply: FastifyReply): FastifyReply {
  return reply
    .header("Access-Control-Allow-Origin", "*")
    .header("Access-Control-Allow-Headers", "content-type, authorization, mcp-protocol-version")
    .header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
}

/**
 * latchkey as the authorization server of its own MCP endpoint (docs/mcp-oauth.md): the metadata of
 * RFC 9728 and RFC 8414, dynamic registration (RFC 7591) and the token endpoint. The authorization
 * endpoint sends the browser to the console, where the user signs in and consents.
 */
export async function oauthRoutes(app: FastifyInstance, options: { oauth: McpOauth }): Promise<void> {
  const { oauth } = options;

  const protectedResource = async (request: FastifyRequest, reply: FastifyReply) =>
    allowAnyOrigin(reply).send({
      resource: mcpResourceOf(request),
      authorization_servers: [originOf(request)],
      bearer_methods_supported: ["header"],
      scopes_supported: CONNECTION_PERMISSIONS,
      resource_name: "latchkey MCP",
    });
  app.get("/.well-known/oauth-protected-resource", HIDDEN, protectedResource);
  app.get("/.well-known/oauth-protected-resource/mcp", HIDDEN, protectedResource);

  app.get("/.well-known/oauth-authorization-server", HIDDEN, async (request, reply) => {
    const origin = originOf(request);
    return allowAnyOrigin(reply).send({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      registration_endpoint: `${origin}/oauth/register`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      scopes_supported: CONNECTION_PERMISSIONS,
    });
  });

  for (const path of ["/oauth/register", "/oauth/token"]) {
    app.options(path, HIDDEN, async (_request, reply) => allowAnyOrigin(reply).code(204).send());
  }

  // Ten redirect URIs of 2,000 characters and a name fit in far less; a larger body is refused unread.
  app.post("/oauth/register", { ...HIDDEN, bodyLimit: REGISTRATION_BODY_BYTES }, async (request, reply) => {
    allowAnyOrigin(reply);
    try {
      return reply
        .code(201)
        .header("Cache-Control", "no-store")
        .send(await oauth.register(request.body, request.ip));
    } catch (error) {
      return oauthFailure(reply, error);
    }
  });

  /** The consent is the console's: it needs the user's session, its CSRF token and its pages. */
  app.get("/oauth/authorize", HIDDEN, async (request, reply) => {
    const query = request.url.indexOf("?");
    return reply.redirect(`/console/oauth/authorize${query < 0 ? "" : request.url.slice(query)}`, 302);
  });

  await app.register(async (scope) => {
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: 16 * 1024 },
      (_request, body, done) => done(null, new URLSearchParams(String(body))),
    );
    scope.post("/oauth/token", HIDDEN, async (request, reply) => {
      allowAnyOrigin(reply).header("Cache-Control", "no-store");
      const form = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
      try {
        const grant = form.get("grant_type");
        if (grant === "authorization_code") return reply.send(await oauth.exchangeCode(form));
        if (grant === "refresh_token") return reply.send(await oauth.refresh(form));
        throw new OauthError(
          "unsupported_grant_type",
          "grant_type must be authorization_code or refresh_token.",
        );
      } catch (error) {
        return oauthFailure(reply, error);
      }
    });
  });
}
