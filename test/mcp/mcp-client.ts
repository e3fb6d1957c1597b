import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { onTestFinished } from "vitest";
import { buildTestApp, type TestApp, type TestAppOptions } from "../helpers/build-test-app.js";

/** A test app really listening on a free port of 127.0.0.1, as MCP clients reach it. */
export async function listeningApp(options: TestAppOptions = {}): Promise<TestApp & { baseUrl: string }> {
  const testApp = await buildTestApp(options);
  const address = await testApp.app.listen({ port: 0, host: "127.0.0.1" });
  return { ...testApp, baseUrl: address };
}

/** An official SDK client connected to `<baseUrl>/mcp` with the given headers, closed when the test ends. */
export async function connectMcp(baseUrl: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "latchkey-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", baseUrl), { requestInit: { headers } });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

/** What a tool call answered, typed for the assertions. */
export interface ToolAnswer {
  isError: boolean;
  /** The text content (the JSON of structuredContent on success, the message on error). */
  text: string;
  structured: {
    success: boolean;
    item?: unknown;
    error?: { code: string; message: string; [detail: string]: unknown };
  };
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return {
    isError: result.isError === true,
    text: first?.type === "text" ? first.text : "",
    structured: result.structuredContent as ToolAnswer["structured"],
  };
}

/** The headers every Streamable HTTP POST carries, for raw `fetch` calls to /mcp. */
export const MCP_POST_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A JSON-RPC request, as a raw client would post it. */
export function rpc(method: string, params: Record<string, unknown> = {}, id = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}
