import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect } from "vitest";
import { callTool, connectMcp, MCP_POST_HEADERS, rpc } from "./mcp-client.js";

type Auth = { authorization: string };

/** What the HTTP layer answered to one raw `tools/call`. */
export interface RawToolAnswer {
  status: number;
  headers: Headers;
  result: { isError?: boolean; content: Array<{ type: string; text: string }> } | undefined;
}

/** A raw `tools/call` POST, to see what the HTTP layer answers (status, headers) as well as the result. */
export async function rawToolCall(
  baseUrl: string,
  headers: Auth,
  name: string,
  args: unknown,
): Promise<RawToolAnswer> {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: "POST",
    headers: { ...MCP_POST_HEADERS, ...headers },
    body: rpc("tools/call", { name, arguments: args }),
  });
  const body = (await response.json()) as { result?: RawToolAnswer["result"] };
  return { status: response.status, headers: response.headers, result: body.result };
}

async function restCreate(baseUrl: string, headers: Auth, name: string) {
  const response = await fetch(`${baseUrl}/v1/proxies`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

async function proxyCount(baseUrl: string, headers: Auth): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/proxies?count=100`, { headers });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: unknown[] }).data.length;
}

/**
 * The spec's promise across protocols (issue 8): 10 REST writes and 10 MCP writes to proxies, spread
 * over the given servers, exhaust `proxy:write` (20) together; the 21st is refused on either side, REST
 * with its 429 and MCP with a tool error in an HTTP 200 without RateLimit headers, and nothing is created.
 */
export async function expectSharedProxyWriteAllowance(baseUrls: string[], owner: Auth): Promise<void> {
  const at = (i: number) => baseUrls[i % baseUrls.length] as string;
  const clients: Client[] = [];
  for (const baseUrl of baseUrls) clients.push(await connectMcp(baseUrl, owner));
  const client = (i: number) => clients[i % clients.length] as Client;

  const rest = await Promise.all(Array.from({ length: 10 }, (_, i) => restCreate(at(i), owner, `rest ${i}`)));
  expect(rest.map((reply) => reply.status)).toEqual(Array(10).fill(200));
  const mcp = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      callTool(client(i), "create_proxy", { content: { name: `mcp ${i}` } }),
    ),
  );
  expect(mcp.map((answer) => answer.isError)).toEqual(Array(10).fill(false));
  expect(await proxyCount(at(0), owner)).toBe(20);

  const refusedRest = await restCreate(at(1), owner, "rest 21");
  expect(refusedRest.status).toBe(429);
  expect(refusedRest.body).toMatchObject({ statusCode: 429, code: "rate_limited" });
  expect(refusedRest.body.message).toMatch(/The proxy:write operation group allows 20 requests per/);
  expect(Number(refusedRest.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(refusedRest.headers.get("ratelimit")).toMatch(/^"proxy:write";r=0/);

  const refusedTool = await callTool(client(2), "create_proxy", { content: { name: "mcp 21" } });
  expect(refusedTool.isError).toBe(true);
  expect(refusedTool.structured.error).toMatchObject({
    code: "rate_limited",
    retry_after_seconds: expect.any(Number),
  });
  expect(refusedTool.text).toMatch(
    /The proxy:write operation group allows 20 requests per .*contact support/,
  );

  const raw = await rawToolCall(at(2), owner, "create_proxy", { content: { name: "mcp 22" } });
  expect(raw.status).toBe(200);
  expect(raw.result?.isError).toBe(true);
  expect(raw.result?.content[0]?.text).toContain("proxy:write");
  expect(raw.headers.get("ratelimit")).toBeNull();
  expect(raw.headers.get("ratelimit-policy")).toBeNull();
  expect(raw.headers.get("retry-after")).toBeNull();

  // Refused writes ran nothing; reads are a group of their own and still work, on both protocols.
  expect(await proxyCount(at(0), owner)).toBe(20);
  const listed = await callTool(client(0), "list_proxies", { count: 100 });
  expect((listed.structured.item as { data: unknown[] }).data).toHaveLength(20);
}
