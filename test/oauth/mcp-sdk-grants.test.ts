import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, onTestFinished, test } from "vitest";
import { buildTestApp, type TestApp } from "../helpers/build-test-app.js";
import { environmentWithoutLatchkey, runLatchkey } from "../helpers/cli-runner.js";
import { consoleUser, signIn } from "../helpers/console-session.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { tempDir } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";

/**
 * The review's reproduction, through the real surfaces: the official MCP SDK client connected over
 * OAuth to a listening latchkey calls `create_proxy`; then the admin who consented is removed with
 * `latchkey user remove` (the built CLI) or demoted in the console; the client's next call, and the
 * refresh the SDK then tries, are refused. On SQLite and on PostgreSQL.
 */

/** The MCP client's side of OAuth, kept in memory. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizations: URL[] = [];
  readonly redirectUrl = "http://127.0.0.1:9/callback";
  get clientMetadata() {
    return {
      client_name: "SDK client",
      redirect_uris: [this.redirectUrl],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizations.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A listening latchkey over `databaseUrl`, an organization, its owner and an admin in the console. */
async function deployment(databaseUrl: string) {
  const testApp = await buildTestApp({ env: { LATCHKEY_DATABASE_URL: databaseUrl } });
  const base = await testApp.app.listen({ port: 0, host: "127.0.0.1" });
  const ownerKey = await testApp.createOrganization("acme");
  await consoleUser(testApp, ownerKey.orgId, "owner");
  const admin = await consoleUser(testApp, ownerKey.orgId, "admin");
  return { testApp, base, ownerKey, admin };
}

/** The SDK client connected over OAuth, the admin consenting in the console (over HTTP). */
async function connectedClient(testApp: TestApp, base: string, orgId: string) {
  const provider = new MemoryProvider();
  const mcpUrl = new URL("/mcp", base);
  const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await expect(new Client({ name: "t", version: "1" }).connect(first)).rejects.toThrow(/Unauthorized/i);
  const authorization = provider.authorizations.pop();
  if (!authorization) throw new Error("the SDK asked for no authorization");
  const admin = await signIn(testApp.app, "admin@example.com");
  const consent = await admin.post("/console/oauth/authorize", {
    ...Object.fromEntries(authorization.searchParams),
    org: orgId,
    permissions: ["proxies:read", "proxies:create_update"],
    decision: "allow",
  });
  expect(consent.statusCode).toBe(303);
  await first.finishAuth(new URL(String(consent.headers.location)).searchParams.get("code") ?? "");
  const client = new Client({ name: "t", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  onTestFinished(() => client.close());
  const created = (await client.callTool({
    name: "create_proxy",
    arguments: { content: { name: "before" } },
  })) as CallToolResult;
  expect(created.isError).not.toBe(true);
  return { client, provider };
}

/**
 * The next tool call is refused (401): the SDK then refreshes with its refresh token, and that is
 * refused too (its `invalid_grant` is what the call rejects with).
 */
async function expectRefused(client: Client) {
  await expect(
    client.callTool({ name: "create_proxy", arguments: { content: { name: "after" } } }),
  ).rejects.toThrow("The refresh token is unknown, revoked, already used or past the connection's lifetime.");
}

function grantsSuite(databaseUrl: () => Promise<string>) {
  test("latchkey user remove --org: the removed admin's MCP client can neither call create_proxy nor refresh", async () => {
    const url = await databaseUrl();
    const { testApp, base, ownerKey } = await deployment(url);
    const { client } = await connectedClient(testApp, base, ownerKey.orgId);
    const removed = await runLatchkey(
      ["user", "remove", "--email", "admin@example.com", "--org", ownerKey.orgId],
      {
        env: { ...environmentWithoutLatchkey(), LATCHKEY_DATABASE_URL: url },
      },
    );
    expect(removed.code, removed.stderr).toBe(0);
    await expectRefused(client);
    const audit = await testApp.app.inject({ url: "/v1/audit", headers: ownerKey.headers });
    expect(audit.json().data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: "mcp_connection.revoke",
          actor: "operator",
          after: expect.objectContaining({ reason: "member_removed" }),
        }),
      ]),
    );
    const proxies = await testApp.app.inject({ url: "/v1/proxies", headers: ownerKey.headers });
    expect((proxies.json().data as { name: string }[]).map((p) => p.name)).toEqual(["before"]);
  });

  test("a demotion to member in the console: the MCP client's next call and refresh are refused", async () => {
    const { testApp, base, ownerKey, admin } = await deployment(await databaseUrl());
    const { client } = await connectedClient(testApp, base, ownerKey.orgId);
    const owner = await signIn(testApp.app, "owner@example.com");
    const demoted = await owner.post(`/console/orgs/${ownerKey.orgId}/members/${admin.id}`, {
      role: "member",
    });
    expect(demoted.statusCode).toBe(303);
    await expectRefused(client);
  });
}

describe("grants follow people on SQLite", () => {
  grantsSuite(async () => `sqlite:${join(tempDir(), "latchkey.db")}`);
});

describeWithServices(["postgres"], "grants follow people on PostgreSQL", ({ postgres }) => {
  grantsSuite(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    return schema.url;
  });
});
