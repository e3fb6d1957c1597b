import { expect, test } from "vitest";
import { keyWith } from "../helpers/http-keys.js";
import { callTool, connectMcp, listeningApp } from "./mcp-client.js";
import { expectSharedProxyWriteAllowance, rawToolCall } from "./shared-allowance.js";

// A window far longer than the test, so no slot expires while it runs on a loaded machine.
const env = { LATCHKEY_RATE_WINDOW_SECONDS: "3600" };

test("10 REST + 10 MCP proxy writes exhaust proxy:write together; the 21st is refused on both sides", async () => {
  const testApp = await listeningApp({ env });
  const owner = await testApp.createOrganization();
  await expectSharedProxyWriteAllowance([testApp.baseUrl], owner.headers);
});

test("MCP reads count against the family's read group: REST sees the remaining allowance drop", async () => {
  const testApp = await listeningApp({ env });
  const owner = await testApp.createOrganization();
  const client = await connectMcp(testApp.baseUrl, owner.headers);
  for (let i = 0; i < 3; i++) expect((await callTool(client, "list_og_configs")).isError).toBe(false);
  const rest = await fetch(`${testApp.baseUrl}/v1/og-configs`, { headers: owner.headers });
  expect(rest.headers.get("ratelimit")).toMatch(/^"og-config:read";r=96(;|$)/);
});

test("usage tools are not rate-limited and take no slot", async () => {
  const testApp = await listeningApp({ env });
  const owner = await testApp.createOrganization();
  await testApp.services.store.setQuota(owner.orgId, "proxy:read", 1);
  const client = await connectMcp(testApp.baseUrl, owner.headers);
  for (let i = 0; i < 5; i++) expect((await callTool(client, "check_usage")).isError).toBe(false);
  expect((await callTool(client, "list_proxies")).isError).toBe(false);
  const second = await rawToolCall(testApp.baseUrl, owner.headers, "list_proxies", {});
  expect(second.status).toBe(200);
  expect(second.result?.content[0]?.text).toMatch(/proxy:read operation group allows 1 requests/);
});

test("as in REST, a call with bad arguments takes a slot and a refused one does not", async () => {
  const testApp = await listeningApp({ env });
  const owner = await testApp.createOrganization();
  await testApp.services.store.setQuota(owner.orgId, "og-config:write", 2);
  const client = await connectMcp(testApp.baseUrl, owner.headers);
  const reader = await connectMcp(
    testApp.baseUrl,
    (await keyWith(testApp, owner, ["og_configs:read"])).headers,
  );

  expect(
    (await callTool(reader, "create_og_config", { content: { name: "x" } })).structured.error?.code,
  ).toBe("missing_permission");
  expect((await callTool(client, "create_og_config", { content: {} })).structured.error?.code).toBe(
    "invalid_request",
  );
  expect((await callTool(client, "create_og_config", { content: { name: "kept" } })).isError).toBe(false);
  const refused = await callTool(client, "create_og_config", { content: { name: "one too many" } });
  expect(refused.structured.error?.code).toBe("rate_limited");
  expect(refused.text).toMatch(/og-config:write operation group allows 2 requests/);
});
