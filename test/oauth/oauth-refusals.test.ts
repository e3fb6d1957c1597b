import { join } from "node:path";
import { expect, test } from "vitest";
import { buildTestApp, fakeClock } from "../helpers/build-test-app.js";
import { tempDir } from "../helpers/processes.js";
import { MCP_POST_HEADERS, rpc } from "../mcp/mcp-client.js";
import { ISSUER, oauthFlow as setup, REDIRECT, RESOURCE } from "../helpers/oauth-flow.js";

test("the metadata names the resource, the server and its endpoints; /oauth/authorize leads to the console", async () => {
  const { app } = await setup();
  const resource = (await app.inject({ url: "/.well-known/oauth-protected-resource" })).json();
  expect(resource).toMatchObject({ resource: RESOURCE, authorization_servers: [ISSUER] });
  const server = (await app.inject({ url: "/.well-known/oauth-authorization-server" })).json();
  expect(server).toMatchObject({
    issuer: ISSUER,
    code_challenge_methods_supported: ["S256"],
    registration_endpoint: `${ISSUER}/oauth/register`,
  });
  expect(server.scopes_supported).not.toContain("api_keys:read");
  const authorize = await app.inject({ url: "/oauth/authorize?client_id=x&state=1" });
  expect(authorize.statusCode).toBe(302);
  expect(authorize.headers.location).toBe("/console/oauth/authorize?client_id=x&state=1");
});

test("registration refuses redirect URIs that are not https or loopback, and confidential clients", async () => {
  const { app } = await setup();
  for (const payload of [
    { redirect_uris: ["http://evil.example/cb"] },
    { redirect_uris: [] },
    { redirect_uris: ["https://ok.example/cb"], token_endpoint_auth_method: "client_secret_basic" },
    { client_name: "no uris" },
  ]) {
    const response = await app.inject({ method: "POST", url: "/oauth/register", payload });
    expect(response.statusCode, JSON.stringify(payload)).toBe(400);
    expect(response.json().error).toMatch(/^invalid_(redirect_uri|client_metadata)$/);
  }
});

test("the redirect URI refusal names every loopback host it accepts, and each of them is accepted", async () => {
  const { app } = await setup();
  const refused = await app.inject({
    method: "POST",
    url: "/oauth/register",
    payload: { redirect_uris: ["http://evil.example/cb"] },
  });
  expect(refused.json().error_description).toContain(
    "redirect_uris must be https URLs, or http URLs on localhost, 127.0.0.1 or [::1], without a fragment.",
  );
  for (const uri of ["http://localhost:9/cb", "http://127.0.0.1:9/cb", "http://[::1]:9/cb"]) {
    const accepted = await app.inject({
      method: "POST",
      url: "/oauth/register",
      payload: { redirect_uris: [uri] },
    });
    expect(accepted.statusCode, uri).toBe(201);
  }
});

test("a redirect URI that was not registered, or a request without PKCE S256, is an error page, never a redirect", async () => {
  const { authorize } = await setup();
  const cases: Record<string, string>[] = [
    { redirect_uri: "http://127.0.0.1:9/elsewhere" },
    { code_challenge_method: "plain" },
    { resource: "http://other.example/mcp" },
  ];
  for (const extra of cases) {
    const { consent } = await authorize(extra);
    expect(consent.statusCode, JSON.stringify(extra)).toBe(400);
    expect(consent.headers.location).toBeUndefined();
  }
});

test("a code works once, with its own verifier, redirect URI and resource", async () => {
  const { authorize, token, mcp } = await setup();
  const first = await authorize();
  expect(first.consent.statusCode).toBe(303);
  expect(String(first.consent.headers.location)).toMatch(
    /^http:\/\/127\.0\.0\.1:9\/callback\?code=.+&state=s1&iss=/,
  );

  const wrongVerifier = await authorize();
  const refused = await token({
    grant_type: "authorization_code",
    code: wrongVerifier.code,
    code_verifier: "x".repeat(43),
    redirect_uri: REDIRECT,
  });
  expect(refused.statusCode).toBe(400);
  expect(refused.json().error).toBe("invalid_grant");

  const otherResource = await authorize();
  const target = await token({
    grant_type: "authorization_code",
    code: otherResource.code,
    code_verifier: otherResource.verifier,
    redirect_uri: REDIRECT,
    resource: "http://other.example/mcp",
  });
  expect(target.json().error).toBe("invalid_target");

  const exchange = {
    grant_type: "authorization_code",
    code: first.code,
    code_verifier: first.verifier,
    redirect_uri: REDIRECT,
  };
  const ok = await token(exchange);
  expect(ok.statusCode).toBe(200);
  expect(ok.headers["cache-control"]).toBe("no-store");
  expect(ok.json()).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "usage:read" });
  expect((await mcp(ok.json().access_token)).statusCode).toBe(200);
  // Used twice: refused, and what the first use issued is revoked (someone else saw the code).
  const twice = await token(exchange);
  expect(twice.statusCode).toBe(400);
  expect(twice.json().error).toBe("invalid_grant");
  expect((await mcp(ok.json().access_token)).statusCode).toBe(401);
});

test("refresh tokens rotate: the old access token is refused once replaced; the old refresh token again revokes the connection", async () => {
  const { token, tokens, mcp } = await setup();
  const first = await tokens();
  const rotated = await token({
    grant_type: "refresh_token",
    refresh_token: first.refresh_token,
    resource: RESOURCE,
  });
  expect(rotated.statusCode).toBe(200);
  const second = rotated.json<{ access_token: string; refresh_token: string }>();
  expect(second.refresh_token).not.toBe(first.refresh_token);
  expect((await mcp(first.access_token)).statusCode).toBe(401);
  expect((await mcp(second.access_token)).statusCode).toBe(200);
  // RFC 9700 4.14.2: a rotated token presented again means two holders; the whole connection ends.
  const again = await token({ grant_type: "refresh_token", refresh_token: first.refresh_token });
  expect(again.json().error).toBe("invalid_grant");
  expect((await mcp(second.access_token)).statusCode).toBe(401);
  const afterReuse = await token({ grant_type: "refresh_token", refresh_token: second.refresh_token });
  expect(afterReuse.json().error).toBe("invalid_grant");
});

test("an access token is refused after its hour, and by a server whose resource is another", async () => {
  const clock = fakeClock();
  const file = join(tempDir(), "latchkey.db");
  const { tokens, mcp } = await setup({ clock, env: { LATCHKEY_DATABASE_URL: `sqlite:${file}` } });
  const { access_token } = await tokens();
  expect((await mcp(access_token)).statusCode).toBe(200);
  // The same database behind another listen address: its resource is http://127.0.0.1:9090/mcp.
  const other = await buildTestApp({ clock, env: { LATCHKEY_DATABASE_URL: `sqlite:${file}`, PORT: "9090" } });
  const elsewhere = await other.app.inject({
    method: "POST",
    url: "/mcp",
    headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${access_token}` },
    payload: rpc("tools/list"),
  });
  expect(elsewhere.statusCode).toBe(401);
  expect(String(elsewhere.headers["www-authenticate"])).toContain('error="invalid_token"');
  clock.advance(3_600_000);
  expect((await mcp(access_token)).statusCode).toBe(401);
});

test("denying consent sends the client access_denied and creates nothing", async () => {
  const { admin, clientId, owner, testApp } = await setup();
  const response = await admin.post("/console/oauth/authorize", {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    code_challenge: "a".repeat(43),
    code_challenge_method: "S256",
    state: "s2",
    org: owner.orgId,
    decision: "deny",
  });
  expect(response.statusCode).toBe(303);
  expect(String(response.headers.location)).toContain("error=access_denied");
  expect(await testApp.services.mcpOauth.list(owner.orgId)).toEqual([]);
});

test("a connection of an organization the platform disabled: 403 organization_disabled; enabled again, it works", async () => {
  const { testApp, owner, tokens, mcp } = await setup();
  const { access_token } = await tokens();
  expect((await mcp(access_token)).statusCode).toBe(200);
  const actor = "service_token:stk_test";
  await testApp.services.provisioning.update(owner.orgId, { disabled: true }, actor);
  const refused = await mcp(access_token);
  expect(refused.statusCode).toBe(403);
  expect(refused.json()).toMatchObject({ code: "organization_disabled" });
  await testApp.services.provisioning.update(owner.orgId, { disabled: false }, actor);
  expect((await mcp(access_token)).statusCode).toBe(200);
});
