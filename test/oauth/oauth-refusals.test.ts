import { createHash, randomBytes } from "node:crypto";
import { expect, test } from "vitest";
import { buildTestApp, fakeClock } from "../helpers/build-test-app.js";
import { consoleUser, form, ORIGIN, signIn } from "../helpers/console-session.js";
import { MCP_POST_HEADERS, rpc } from "../mcp/mcp-client.js";

const REDIRECT = "http://127.0.0.1:9/callback";
const RESOURCE = `${ORIGIN}/mcp`;

async function setup(options: Parameters<typeof buildTestApp>[0] = {}) {
  const testApp = await buildTestApp(options);
  const owner = await testApp.createOrganization();
  await consoleUser(testApp, owner.orgId, "admin");
  const app = testApp.app;
  const registered = await app.inject({
    method: "POST",
    url: "/oauth/register",
    payload: { client_name: "Refusals", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" },
  });
  expect(registered.statusCode).toBe(201);
  const clientId = registered.json().client_id as string;
  const admin = await signIn(app, "admin@example.com");

  /** Consents as the admin; returns the code and the verifier that goes with it. */
  async function authorize(extra: Record<string, string> = {}) {
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const params = {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s1",
      resource: RESOURCE,
      ...extra,
    };
    const consent = await admin.post("/console/oauth/authorize", {
      ...params,
      org: owner.orgId,
      permissions: ["usage:read"],
      decision: "allow",
    });
    return {
      consent,
      verifier,
      code: new URL(String(consent.headers.location ?? REDIRECT)).searchParams.get("code") ?? "",
    };
  }

  const token = (fields: Record<string, string>) =>
    app.inject({
      method: "POST",
      url: "/oauth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: form({ client_id: clientId, ...fields }),
    });

  async function tokens() {
    const { code, verifier } = await authorize();
    const answer = await token({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      resource: RESOURCE,
    });
    expect(answer.statusCode).toBe(200);
    return answer.json<{ access_token: string; refresh_token: string }>();
  }

  const mcp = (accessToken: string, host = "localhost:80") =>
    app.inject({
      method: "POST",
      url: "/mcp",
      headers: { ...MCP_POST_HEADERS, host, authorization: `Bearer ${accessToken}` },
      payload: rpc("tools/list"),
    });

  return { testApp, app, owner, admin, clientId, authorize, token, tokens, mcp };
}

test("the metadata names the resource, the server and its endpoints; /oauth/authorize leads to the console", async () => {
  const { app } = await setup();
  const resource = (await app.inject({ url: "/.well-known/oauth-protected-resource" })).json();
  expect(resource).toMatchObject({ resource: RESOURCE, authorization_servers: [ORIGIN] });
  const server = (await app.inject({ url: "/.well-known/oauth-authorization-server" })).json();
  expect(server).toMatchObject({
    issuer: ORIGIN,
    code_challenge_methods_supported: ["S256"],
    registration_endpoint: `${ORIGIN}/oauth/register`,
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
  expect(refused.json().error_description).toBe(
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
  const twice = await token(exchange);
  expect(twice.statusCode).toBe(400);
  expect(twice.json().error).toBe("invalid_grant");
  expect((await mcp(ok.json().access_token)).statusCode).toBe(200);
});

test("refresh tokens rotate: the old refresh and access tokens are refused once replaced", async () => {
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
  const again = await token({ grant_type: "refresh_token", refresh_token: first.refresh_token });
  expect(again.json().error).toBe("invalid_grant");
  expect((await mcp(first.access_token)).statusCode).toBe(401);
  expect((await mcp(second.access_token)).statusCode).toBe(200);
});

test("an access token is refused for another resource and after its hour", async () => {
  const clock = fakeClock();
  const { tokens, mcp } = await setup({ clock });
  const { access_token } = await tokens();
  expect((await mcp(access_token, "localhost:80")).statusCode).toBe(200);
  const elsewhere = await mcp(access_token, "127.0.0.1:80");
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
