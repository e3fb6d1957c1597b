import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, onTestFinished, test } from "vitest";
import { consoleUser } from "../helpers/console-session.js";
import { listeningApp, openConsole, sharedBrowser } from "../helpers/console-browser.js";
import { describeWithServices } from "../helpers/services.js";

/** The MCP client's side of OAuth, kept in memory as a desktop client keeps it on disk. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata() {
    return {
      client_name: "Test MCP client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
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
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Where the browser lands after consent: a page of the "client" that only says it got the code. */
async function callbackServer(): Promise<string> {
  const server = createServer((_request, response) => response.end("You can close this window."));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
}

describeWithServices(
  ["chromium"],
  "MCP over OAuth with the official SDK client and a real browser",
  ({ chromium }) => {
    const browser = sharedBrowser(() => chromium);

    test("sign-in and consent in the browser, a tool call with the token, the allowance shared with REST, then revocation", async () => {
      const { testApp, base } = await listeningApp();
      const ownerKey = await testApp.createOrganization("acme");
      await consoleUser(testApp, ownerKey.orgId, "admin");
      const provider = new MemoryProvider(await callbackServer());
      const mcpUrl = new URL("/mcp", base);

      // 1. The client meets a 401 with the Bearer challenge, discovers, registers, and sends the user to authorize.
      const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
      await expect(new Client({ name: "t", version: "1" }).connect(first)).rejects.toThrow(/Unauthorized/i);
      expect(provider.client?.client_id).toMatch(/^mcl_/);
      const authorizationUrl = provider.authorizationUrl;
      expect(authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
      expect(authorizationUrl?.searchParams.get("resource")).toBe(`${base}/mcp`);

      // 2. The browser signs in and consents: the organization, and proxies and usage read only.
      const { context, page } = await openConsole(browser(), base);
      onTestFinished(() => context.close());
      await page.goto(String(authorizationUrl));
      await page.getByLabel("Email").fill("admin@example.com");
      await page.getByLabel("Password").fill("correct horse battery staple");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Connect Test MCP client" }).waitFor();
      for (const permission of [
        "images:read",
        "templates:read",
        "storage_destinations:read",
        "og_configs:read",
      ]) {
        await page.getByLabel(permission).uncheck();
      }
      expect(await page.getByLabel("api_keys:read").count()).toBe(0);
      await page.getByRole("button", { name: "Allow" }).click();
      await page.waitForURL((url) => url.pathname === "/callback");
      const code = new URL(page.url()).searchParams.get("code") ?? "";
      expect(new URL(page.url()).searchParams.get("iss")).toBe(base);
      await first.finishAuth(code);
      expect(provider.saved?.access_token).toMatch(/^lkat_/);
      expect(provider.saved?.scope).toBe("proxies:read usage:read");

      // 3. A tool call with the token, counted in the organization's proxy:read group with REST.
      const client = new Client({ name: "t", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
      onTestFinished(() => client.close());
      const listed = (await client.callTool({ name: "list_proxies", arguments: {} })) as CallToolResult;
      expect(listed.isError).not.toBe(true);
      const rest = await testApp.app.inject({ url: "/v1/proxies", headers: ownerKey.headers });
      expect(rest.headers.ratelimit).toBe('"proxy:read";r=98;t=60');
      const keys = (await client
        .callTool({ name: "list_api_keys", arguments: {} })
        .catch((e: Error) => e)) as CallToolResult | Error;
      expect(keys instanceof Error || keys.isError === true).toBe(true);

      // 4. Revoked in the console: the next call is refused, and the refresh token with it.
      await page.goto(`/console/orgs/${ownerKey.orgId}/connections`);
      page.once("dialog", (dialog) => void dialog.accept());
      await page.getByRole("button", { name: "Revoke Test MCP client" }).click();
      await page.getByText("Connection revoked.").waitFor();
      await expect(client.callTool({ name: "list_proxies", arguments: {} })).rejects.toThrow();
      const direct = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${provider.saved?.access_token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(direct.status).toBe(401);
      expect(direct.headers.get("www-authenticate")).toContain(
        `resource_metadata="${base}/.well-known/oauth-protected-resource"`,
      );
      const audit = await testApp.app.inject({ url: "/v1/audit", headers: ownerKey.headers });
      expect((audit.json().data as { action: string }[]).map((e) => e.action)).toEqual(
        expect.arrayContaining(["mcp_connection.create", "mcp_connection.revoke"]),
      );
    });
  },
);
