import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { FastifyBaseLogger } from "fastify";
import { LatchkeyError } from "../domain/errors.js";
import type { AccessControl } from "../services/access-decision.js";
import { validateInput } from "../services/validate-input.js";
import { ajvFor } from "../validation/ajv.js";
import type { ApiKeyRecord } from "../store/key-store.js";
import type { McpTool } from "./tool.js";
import { toolError, toolSuccess } from "./tool-result.js";

/** What every MCP request's server shares: the tools and the one access decision. */
export interface McpContext {
  tools: readonly McpTool[];
  access: AccessControl;
  version: string;
}

// The SDK's Server builds a new Ajv instance (with its formats) when given no validator: 13% of the
// server's CPU under load (bench/mcp.mjs and its README). The one JSON instance serves every request.
const jsonSchemaValidator = new AjvJsonSchemaValidator(ajvFor("json"));

/**
 * One tool call, in REST's order of checks (docs/authority.md): permission -> plan feature -> rate
 * limit (a slot taken when admitted, in the same `consume` as REST) -> arguments -> the operation. A
 * refusal at any step is a tool error and nothing after it runs.
 */
async function callTool(
  context: McpContext,
  tool: McpTool,
  caller: ApiKeyRecord,
  args: unknown,
  log: FastifyBaseLogger,
): Promise<CallToolResult> {
  try {
    const decision = await context.access.decideFor(caller, tool.operation);
    if (!decision.allowed) return toolError(decision.error);
    // The tool's schema, checked with the services' own validator (the REST body rules).
    const input = validateInput(tool.inputSchema, args ?? {});
    return toolSuccess(await tool.run(caller, input));
  } catch (error) {
    if (error instanceof LatchkeyError) return toolError(error);
    log.error({ err: error, tool: tool.name }, "unhandled error in an MCP tool");
    return toolError(new LatchkeyError("internal", "Internal server error."));
  }
}

/**
 * A new MCP server for one HTTP request and one authenticated caller (stateless Streamable HTTP). The
 * SDK's low-level `Server` is used rather than `McpServer`, whose tools take Zod schemas only: here the
 * tools' input schemas are the TypeBox (JSON Schema) objects REST validates with, one source of truth.
 */
export function createMcpServer(context: McpContext, caller: ApiKeyRecord, log: FastifyBaseLogger): Server {
  const server = new Server(
    { name: "latchkey", version: context.version },
    {
      capabilities: { tools: {} },
      jsonSchemaValidator,
      instructions:
        "Manage this organization's proxies, storage destinations and OG configurations, and check its " +
        "image credits. Calls count against the same per-organization limits as the REST API.",
    },
  );
  const byName = new Map(context.tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: context.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as unknown as { type: "object" } & Record<string, unknown>,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callTool(context, tool, caller, request.params.arguments, log);
  });
  return server;
}
