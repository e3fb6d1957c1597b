import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { keyWith } from "../helpers/http-keys.js";
import { callTool, connectMcp, listeningApp, MCP_POST_HEADERS, rpc } from "./mcp-client.js";

async function setup() {
  const testApp = await listeningApp();
  const owner = await testApp.createOrganization();
  return { testApp, owner, url: `${testApp.baseUrl}/mcp` };
}

test("an SDK client connects with Basic credentials; the server names latchkey's version; tools/list has the family and usage tools, none for keys", async () => {
  const { testApp, owner } = await setup();
  const client = await connectMcp(testApp.baseUrl, owner.headers);
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  expect(names).toEqual(expect.arrayContaining(["check_usage", "get_max_batch_size"]));
  expect(names.filter((name) => /key/i.test(name))).toEqual([]);
  for (const tool of tools) {
    expect(tool.description).toBeTruthy();
    expect(tool.inputSchema.type).toBe("object");
  }
  const installed = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  expect(client.getServerVersion()).toMatchObject({ name: "latchkey", version: installed.version });
});

test.each([
  ["no credentials", {}],
  ["a wrong secret", "wrong"],
  ["a malformed header", { authorization: "Basic !!!" }],
  ["a disabled key", "disabled"],
])(
  "%s: HTTP 401 with WWW-Authenticate and the documented body, before any MCP message is read",
  async (_label, variant) => {
    const { testApp, owner, url } = await setup();
    let headers: Record<string, string> = {};
    if (variant === "wrong") headers = basicAuth(owner.apiId, `${owner.secret}x`);
    else if (variant === "disabled") {
      const key = await keyWith(testApp, owner, ["usage:read"]);
      await testApp.services.keys.disable(
        (await testApp.services.store.findKey(owner.orgId, owner.id))!,
        key.id,
      );
      headers = key.headers;
    } else headers = variant as Record<string, string>;
    // The body is not even JSON: a 401 proves the credentials are checked before the message is read.
    const response = await fetch(url, {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, ...headers },
      body: "{not json",
    });
    expect(response.status).toBe(401);
    // Without any credential, OAuth clients are first told where the flow starts (docs/mcp-oauth.md).
    expect(response.headers.get("www-authenticate")).toBe(
      variant === "no credentials" || Object.keys(headers).length === 0
        ? `Bearer resource_metadata="${new URL(url).origin}/.well-known/oauth-protected-resource", Basic realm="latchkey", charset="UTF-8"`
        : 'Basic realm="latchkey", charset="UTF-8"',
    );
    const body = (await response.json()) as { message: string };
    expect(body).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      message: expect.stringContaining("Authentication required"),
      code: "unauthorized",
    });
    // Both ways in are named where both are challenged.
    if (response.headers.get("www-authenticate")?.startsWith("Bearer")) {
      expect(body.message).toContain("Bearer");
      expect(body.message).toContain("HTTP Basic");
    }
  },
);

test("the SDK client sees the 401 as a failed connection", async () => {
  const { testApp, owner } = await setup();
  await expect(connectMcp(testApp.baseUrl, basicAuth(owner.apiId, "nope"))).rejects.toThrow(/401/);
});

test.each(["GET", "DELETE"])("%s /mcp is 405 in the documented shape, with Allow: POST", async (method) => {
  const { owner, url } = await setup();
  const response = await fetch(url, { method, headers: { ...owner.headers, accept: "text/event-stream" } });
  expect(response.status).toBe(405);
  expect(response.headers.get("allow")).toBe("POST");
  expect(await response.json()).toMatchObject({ statusCode: 405, code: "method_not_allowed" });
});

test.each([
  ["Host", { host: "evil.example" }],
  ["Origin", { origin: "http://evil.example" }],
  ["Origin null", { origin: "null" }],
])(
  "a foreign %s is refused with 403 host_not_allowed, credentials or not (DNS rebinding)",
  async (_label, extra) => {
    const { owner, url } = await setup();
    // fetch cannot set Host: send the request with node:http instead.
    const { request } = await import("node:http");
    const target = new URL(url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: "/mcp",
          method: "POST",
          headers: { ...MCP_POST_HEADERS, ...owner.headers, ...extra },
        },
        (res) => {
          let body = "";
          res.on("data", (chunk) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.end(rpc("tools/list"));
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({
      statusCode: 403,
      error: "Forbidden",
      code: "host_not_allowed",
    });
  },
);

test("a local Origin (the MCP Inspector's, localhost) is accepted", async () => {
  const { owner, url } = await setup();
  const response = await fetch(url, {
    method: "POST",
    headers: { ...MCP_POST_HEADERS, ...owner.headers, origin: "http://localhost:6274" },
    body: rpc("tools/list"),
  });
  expect(response.status).toBe(200);
  const answer = (await response.json()) as { result: { tools: unknown[] } };
  expect(answer.result.tools.length).toBeGreaterThan(0);
});

test("LATCHKEY_MCP_ALLOWED_HOSTS adds the names a proxy forwards", async () => {
  const testApp = await listeningApp({
    env: { LATCHKEY_MCP_ALLOWED_HOSTS: "latchkey.internal, mcp.example.com" },
  });
  const owner = await testApp.createOrganization();
  const { request } = await import("node:http");
  const target = new URL(testApp.baseUrl);
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: "/mcp",
        method: "POST",
        headers: { ...MCP_POST_HEADERS, ...owner.headers, host: "mcp.example.com:443" },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(rpc("tools/list"));
  });
  expect(status).toBe(200);
});

test.each([
  ["malformed JSON", "{not json", -32700],
  ["an empty body", "", -32700],
  ["JSON that is not JSON-RPC", JSON.stringify({ hello: "world" }), -32700],
  ["an unknown method", rpc("no/such/method"), -32601],
])("%s is a JSON-RPC error, never a 5xx", async (_label, body, code) => {
  const { owner, url } = await setup();
  const response = await fetch(url, {
    method: "POST",
    headers: { ...MCP_POST_HEADERS, ...owner.headers },
    body,
  });
  expect(response.status).toBeLessThan(500);
  const answer = await response.json();
  expect(answer).toMatchObject({ jsonrpc: "2.0", error: { code } });
});

test("a body that is not JSON (text/plain) is a JSON-RPC error with 415", async () => {
  const { owner, url } = await setup();
  const response = await fetch(url, {
    method: "POST",
    headers: { ...MCP_POST_HEADERS, ...owner.headers, "content-type": "text/plain" },
    body: rpc("tools/list"),
  });
  expect(response.status).toBe(415);
  expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
});

test("a body over 64 KiB is refused without a 5xx", async () => {
  const { owner, url } = await setup();
  const body = rpc("tools/call", { name: "check_usage", arguments: { padding: "x".repeat(70_000) } });
  const response = await fetch(url, {
    method: "POST",
    headers: { ...MCP_POST_HEADERS, ...owner.headers },
    body,
  });
  expect(response.status).toBe(413);
});

test("an unknown tool is a JSON-RPC invalid-params error", async () => {
  const { owner, url } = await setup();
  const response = await fetch(url, {
    method: "POST",
    headers: { ...MCP_POST_HEADERS, ...owner.headers },
    body: rpc("tools/call", { name: "create_api_key", arguments: {} }),
  });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({
    error: { code: -32602, message: expect.stringContaining("create_api_key") },
  });
});

test("responses carry X-Request-Id and no RateLimit headers", async () => {
  const { owner, url } = await setup();
  const response = await fetch(url, {
    method: "POST",
    headers: { ...MCP_POST_HEADERS, ...owner.headers },
    body: rpc("tools/call", { name: "check_usage", arguments: {} }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("x-request-id")).toBeTruthy();
  expect(response.headers.get("ratelimit")).toBeNull();
  expect(response.headers.get("ratelimit-policy")).toBeNull();
});

test("check_usage and get_max_batch_size answer from the plan and the credits", async () => {
  const { testApp, owner } = await setup();
  await testApp.services.plans.change(owner.orgId, { imageCredits: 7, overages: true, maxBatchSize: 4 });
  const client = await connectMcp(testApp.baseUrl, owner.headers);
  const usage = await callTool(client, "check_usage");
  expect(usage.isError).toBe(false);
  expect(usage.structured).toEqual({
    success: true,
    item: {
      images_used: 0,
      images_allowed: 7,
      overages_enabled: true,
      next_reset: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    },
  });
  expect(JSON.parse(usage.text)).toEqual(usage.structured);
  const batch = await callTool(client, "get_max_batch_size");
  expect(batch.structured).toEqual({ success: true, item: { max_batch_size: 4 } });
});

test("without usage:read, check_usage is a tool error naming the permission, in an HTTP 200", async () => {
  const { testApp, owner } = await setup();
  const key = await keyWith(testApp, owner, ["proxies:read"]);
  const client = await connectMcp(testApp.baseUrl, key.headers);
  for (const name of ["check_usage", "get_max_batch_size"]) {
    const answer = await callTool(client, name);
    expect(answer.isError).toBe(true);
    expect(answer.text).toBe("This operation requires the usage:read permission.");
    expect(answer.structured.error?.code).toBe("missing_permission");
  }
});

test("arguments a tool does not declare are a tool error naming them", async () => {
  const { testApp, owner } = await setup();
  const client = await connectMcp(testApp.baseUrl, owner.headers);
  const answer = await callTool(client, "check_usage", { verbose: true });
  expect(answer.isError).toBe(true);
  expect(answer.text).toBe("Invalid request: /verbose is not a known field.");
  expect(answer.structured).toEqual({
    success: false,
    error: {
      code: "invalid_request",
      message: answer.text,
      validation_errors: [{ path: "/verbose", message: "is not a known field" }],
    },
  });
});

test("an unexpected failure in a tool is a tool error that hides the details, logged, never a 5xx", async () => {
  const { testApp, owner, url } = await setup();
  const proxies = testApp.services.resources.proxies as { list: (...args: unknown[]) => Promise<unknown> };
  proxies.list = async () => {
    throw new Error("database exploded at /var/lib/secret-path");
  };
  const response = await fetch(url, {
    method: "POST",
    headers: { ...MCP_POST_HEADERS, ...owner.headers },
    body: rpc("tools/call", { name: "list_proxies", arguments: {} }),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  expect(text).not.toContain("secret-path");
  expect(JSON.parse(text)).toMatchObject({
    result: { isError: true, content: [{ type: "text", text: "Internal server error." }] },
  });
  expect(testApp.logs.some((line) => line.includes("unhandled error in an MCP tool"))).toBe(true);
});
