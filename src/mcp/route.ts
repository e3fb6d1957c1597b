import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { LatchkeyError } from "../domain/errors.js";
import { peerOrigin } from "../http/client-origin.js";
import { rejectOtherMethods } from "../http/method-not-allowed.js";
import type { AccessControl } from "../services/access-decision.js";
import type { ApiKeyRecord } from "../store/key-store.js";
import { packageVersion } from "../version.js";
import { checkHostAndOrigin } from "./allowed-hosts.js";
import { createMcpServer, type McpContext } from "./server.js";
import type { McpTool } from "./tool.js";
import type { McpOauth } from "../services/mcp-oauth.js";
import { bearerCaller, sendMcpChallenge } from "./bearer.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The key an `/mcp` request authenticated as, set before the MCP message is read. */
    mcpCaller: ApiKeyRecord | null;
  }
}

export interface McpRouteOptions {
  access: AccessControl;
  tools: readonly McpTool[];
  /** Host names accepted in `Host` and `Origin`. */
  allowedHosts: ReadonlySet<string>;
  /** Largest MCP message, in bytes (the REST body limit). */
  maxBodyBytes: number;
  /** OAuth connections (Bearer tokens); absent with the console off, when only Basic is accepted. */
  oauth?: McpOauth;
}

/**
 * `POST /mcp`: the MCP endpoint, stateless Streamable HTTP (docs/mcp.md). Host and Origin are
 * checked, then the Basic credentials, both before the body is read; only then do a new MCP server and
 * transport handle the message, for this request alone.
 */
export async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const context: McpContext = { tools: options.tools, access: options.access, version: packageVersion() };
  app.decorateRequest("mcpCaller", null);

  // The SDK transport reads and checks the body itself, so that malformed JSON, a non-JSON media type
  // or a bad JSON-RPC message get JSON-RPC errors. In this plugin only, Fastify leaves the stream alone.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, _payload, done) => done(null));

  app.post(
    "/mcp",
    {
      schema: { hide: true },
      onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
        const refusal = checkHostAndOrigin(request.headers, options.allowedHosts);
        if (refusal) throw refusal;
        const authorization = request.headers.authorization;
        const { oauth } = options;
        if (oauth && !authorization) return sendMcpChallenge(request, reply, false);
        if (oauth && authorization && /^bearer /i.test(authorization)) {
          const connection = await bearerCaller(request, oauth, authorization.slice(7).trim());
          if (!connection) return sendMcpChallenge(request, reply, true);
          request.mcpCaller = connection;
          return;
        }
        const caller = await options.access.authenticate(authorization, peerOrigin(request));
        if (caller instanceof LatchkeyError) throw caller;
        request.mcpCaller = caller;
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const caller = request.mcpCaller;
      if (!caller) throw new LatchkeyError("internal", "MCP request reached without a caller.");
      const server = createMcpServer(context, caller, request.log);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        maxRequestBodySize: options.maxBodyBytes,
      });
      reply.hijack();
      reply.raw.setHeader("X-Request-Id", request.id);
      reply.raw.on("close", () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw);
      } catch (error) {
        request.log.error({ err: error }, "MCP request failed");
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { "content-type": "application/json" });
          reply.raw.end(
            JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null }),
          );
        }
      }
    },
  );
  rejectOtherMethods(app, "/mcp", ["POST"]);
}
