import { createHash, randomBytes } from "node:crypto";
import { expect, test } from "vitest";
import { fakeClock } from "../helpers/build-test-app.js";
import { ISSUER, oauthFlow, REDIRECT, RESOURCE } from "../helpers/oauth-flow.js";

/**
 * One negative test per rule of the OAuth 2.1 / RFC 9700 checklist that latchkey's authorization
 * server implements (docs/mcp-oauth.md lists them): each fails if its check is removed.
 */

const exchangeOf = (code: string, verifier: string, extra: Record<string, string> = {}) => ({
  grant_type: "authorization_code",
  code,
  code_verifier: verifier,
  redirect_uri: REDIRECT,
  resource: RESOURCE,
  ...extra,
});

test("the token exchange refuses a redirect_uri other than the authorization request's, even one the client registered", async () => {
  const flow = await oauthFlow();
  const second = "http://127.0.0.1:9/other";
  const registered = await flow.app.inject({
    method: "POST",
    url: "/oauth/register",
    payload: { redirect_uris: [REDIRECT, second] },
  });
  const clientId = registered.json().client_id as string;
  for (const redirect of [second, undefined]) {
    const { code, verifier } = await flow.authorize({ client_id: clientId });
    const fields = exchangeOf(code, verifier, { client_id: clientId });
    if (redirect === undefined) delete (fields as Partial<typeof fields>).redirect_uri;
    else fields.redirect_uri = redirect;
    const refused = await flow.token(fields);
    expect(refused.statusCode, String(redirect)).toBe(400);
    expect(refused.json()).toMatchObject({ error: "invalid_grant" });
    expect(refused.json().error_description).toContain("redirect_uri");
  }
});

test("the token exchange refuses a code issued to another client", async () => {
  const flow = await oauthFlow();
  const other = await flow.app.inject({
    method: "POST",
    url: "/oauth/register",
    payload: { client_name: "Thief", redirect_uris: [REDIRECT] },
  });
  const { code, verifier } = await flow.authorize();
  const stolen = await flow.token(exchangeOf(code, verifier, { client_id: other.json().client_id }));
  expect(stolen.statusCode).toBe(400);
  expect(stolen.json()).toMatchObject({ error: "invalid_grant" });
  expect(stolen.json().error_description).toContain("another client");
  expect(await flow.testApp.services.mcpOauth.list(flow.owner.orgId)).toEqual([]);
});

test("registration refuses a redirect URI with a fragment, even an empty one", async () => {
  const { app } = await oauthFlow();
  for (const uri of [
    "https://client.example/cb#frag",
    "https://client.example/cb#",
    "http://127.0.0.1:9/cb#x",
  ]) {
    const response = await app.inject({
      method: "POST",
      url: "/oauth/register",
      payload: { redirect_uris: [uri] },
    });
    expect(response.statusCode, uri).toBe(400);
    expect(response.json()).toMatchObject({ error: "invalid_redirect_uri" });
    expect(response.json().error_description).toContain("has a fragment");
  }
});

test("PKCE: an authorization request without a code_challenge, or with a malformed one, is an error page", async () => {
  const flow = await oauthFlow();
  const cases: Record<string, string>[] = [
    { code_challenge: "" },
    { code_challenge: "short" },
    { code_challenge: `${"a".repeat(42)}!` },
    { code_challenge_method: "" },
    { code_challenge_method: "s256" },
  ];
  for (const extra of cases) {
    const { consent } = await flow.authorize(extra);
    expect(consent.statusCode, JSON.stringify(extra)).toBe(400);
    expect(consent.headers.location).toBeUndefined();
  }
});

test("PKCE: the exchange without a code_verifier, or with another code's, is refused", async () => {
  const flow = await oauthFlow();
  const first = await flow.authorize();
  const second = await flow.authorize();
  const missing = exchangeOf(first.code, "");
  delete (missing as Partial<typeof missing>).code_verifier;
  expect((await flow.token(missing)).json()).toMatchObject({ error: "invalid_grant" });
  const swapped = await flow.token(exchangeOf(second.code, first.verifier));
  expect(swapped.json()).toMatchObject({ error: "invalid_grant" });
  expect(swapped.json().error_description).toContain("code_verifier");
});

test("a code expires ten minutes after consent", async () => {
  const clock = fakeClock();
  const flow = await oauthFlow({ clock });
  const late = await flow.authorize();
  const inTime = await flow.authorize();
  clock.advance(10 * 60_000 - 1);
  expect((await flow.token(exchangeOf(inTime.code, inTime.verifier))).statusCode).toBe(200);
  clock.advance(1);
  const expired = await flow.token(exchangeOf(late.code, late.verifier));
  expect(expired.statusCode).toBe(400);
  expect(expired.json()).toMatchObject({ error: "invalid_grant" });
});

test("an unknown code, and a code presented as a refresh token, are refused", async () => {
  const flow = await oauthFlow();
  const { code, verifier } = await flow.authorize();
  expect((await flow.token(exchangeOf("not-a-code", verifier))).json()).toMatchObject({
    error: "invalid_grant",
  });
  const asRefresh = await flow.token({ grant_type: "refresh_token", refresh_token: code });
  expect(asRefresh.json()).toMatchObject({ error: "invalid_grant" });
});

test("the authorization request: response_type must be code; an unknown client_id is an error page, never a redirect", async () => {
  const flow = await oauthFlow();
  const cases: Record<string, string>[] = [
    { response_type: "token" },
    { response_type: "" },
    { client_id: "mcl_unknown" },
  ];
  for (const extra of cases) {
    const { consent } = await flow.authorize(extra);
    expect(consent.statusCode, JSON.stringify(extra)).toBe(400);
    expect(consent.headers.location).toBeUndefined();
  }
});

test("refresh tokens: bound to their client, to their resource, and never taken as access tokens", async () => {
  const flow = await oauthFlow();
  const { access_token, refresh_token } = await flow.tokens();
  const other = await flow.app.inject({
    method: "POST",
    url: "/oauth/register",
    payload: { redirect_uris: [REDIRECT] },
  });
  const wrongClient = await flow.token({
    grant_type: "refresh_token",
    refresh_token,
    client_id: other.json().client_id,
  });
  expect(wrongClient.json()).toMatchObject({ error: "invalid_grant" });
  const wrongResource = await flow.token({
    grant_type: "refresh_token",
    refresh_token,
    resource: "http://other.example/mcp",
  });
  expect(wrongResource.json()).toMatchObject({ error: "invalid_target" });
  expect((await flow.mcp(refresh_token)).statusCode).toBe(401);
  const accessAsRefresh = await flow.token({ grant_type: "refresh_token", refresh_token: access_token });
  expect(accessAsRefresh.json()).toMatchObject({ error: "invalid_grant" });
  // None of the refusals spent the token.
  expect((await flow.token({ grant_type: "refresh_token", refresh_token })).statusCode).toBe(200);
});

test("the token endpoint refuses other grant types, and answers every refusal with no-store", async () => {
  const flow = await oauthFlow();
  for (const grant of ["password", "client_credentials", "implicit", ""]) {
    const refused = await flow.token({ grant_type: grant });
    expect(refused.statusCode, grant).toBe(400);
    expect(refused.json()).toMatchObject({ error: "unsupported_grant_type" });
    expect(refused.headers["cache-control"]).toBe("no-store");
  }
});

test("the authorization response carries state and iss (RFC 9207), and the code is opaque and long", async () => {
  const flow = await oauthFlow();
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const { consent } = await flow.authorize({ code_challenge: challenge, state: "xyz" });
  const location = new URL(String(consent.headers.location));
  expect(location.searchParams.get("state")).toBe("xyz");
  expect(location.searchParams.get("iss")).toBe(ISSUER);
  expect(location.searchParams.get("code")?.length).toBeGreaterThanOrEqual(43);
});
