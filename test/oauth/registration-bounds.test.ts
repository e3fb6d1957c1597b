import { expect, test } from "vitest";
import { loadConfig } from "../../src/config.js";
import { startAdvice } from "../../src/start-log.js";
import { buildTestApp, fakeClock } from "../helpers/build-test-app.js";
import { signIn } from "../helpers/console-session.js";
import { ISSUER, oauthFlow, REDIRECT } from "../helpers/oauth-flow.js";

const register = (
  app: Awaited<ReturnType<typeof buildTestApp>>["app"],
  payload: unknown,
  remoteAddress = "203.0.113.7",
) => app.inject({ method: "POST", url: "/oauth/register", payload: payload as object, remoteAddress });

test("at most 10 redirect URIs of at most 2,000 characters; nothing is stored for a refused registration", async () => {
  const { app } = await buildTestApp();
  const uri = (n: number) => `https://client.example/cb/${n}`;
  const ten = Array.from({ length: 10 }, (_, n) => uri(n));
  expect((await register(app, { redirect_uris: ten })).statusCode).toBe(201);
  const eleven = await register(app, { redirect_uris: [...ten, uri(10)] });
  expect(eleven.statusCode).toBe(400);
  expect(eleven.json()).toMatchObject({ error: "invalid_redirect_uri" });
  expect(eleven.json().error_description).toContain("1 to 10 URIs");
  const base = "https://client.example/";
  const longest = base + "a".repeat(2000 - base.length);
  expect((await register(app, { redirect_uris: [longest] })).statusCode).toBe(201);
  const tooLong = await register(app, { redirect_uris: [`${longest}a`] });
  expect(tooLong.statusCode).toBe(400);
  expect(tooLong.json().error_description).toContain("longer than 2000 characters");
});

test("30 registrations an hour per client address: the 31st is 429 rate_limited with Retry-After; another address is not held", async () => {
  const clock = fakeClock();
  const { app } = await buildTestApp({ clock });
  for (let i = 0; i < 30; i++) {
    expect((await register(app, { redirect_uris: [REDIRECT] })).statusCode).toBe(201);
  }
  const refused = await register(app, { redirect_uris: [REDIRECT] });
  expect(refused.statusCode).toBe(429);
  expect(refused.json()).toMatchObject({ error: "rate_limited" });
  expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
  expect((await register(app, { redirect_uris: [REDIRECT] }, "198.51.100.9")).statusCode).toBe(201);
  clock.advance(3_600_000);
  expect((await register(app, { redirect_uris: [REDIRECT] })).statusCode).toBe(201);
});

test("a client nobody consented to is deleted a day after it registered; one with a consent stays", async () => {
  const clock = fakeClock();
  const flow = await oauthFlow({ clock });
  await flow.authorize();
  const idle = await register(flow.app, { redirect_uris: [REDIRECT] });
  const idleId = idle.json().client_id as string;
  clock.advance(24 * 3_600_000);
  expect(await flow.testApp.services.mcpOauth.sweep()).toMatchObject({ clients: 0 });
  clock.advance(1);
  expect(await flow.testApp.services.mcpOauth.sweep()).toMatchObject({ clients: 1 });
  // A day later the admin signs in again (the console session ended after 12 idle hours).
  const admin = await signIn(flow.app, "admin@example.com");
  const consentTo = (clientId: string) =>
    admin.get(
      `/console/oauth/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: "code",
        code_challenge: "a".repeat(43),
        code_challenge_method: "S256",
      }).toString()}`,
    );
  const gone = await consentTo(idleId);
  expect(gone.statusCode).toBe(400);
  expect(gone.body).toContain("Unknown client_id");
  expect((await consentTo(flow.clientId)).statusCode).toBe(200);
});

test("redirect URI hosts must be host names or addresses: no CSP directive can ride in on one", async () => {
  const { app } = await buildTestApp();
  for (const uri of [
    "https://client.example%3Bscript-src/cb",
    "https://client.example%3Bsandbox%3Ballow-scripts/cb",
    "https://a,b.example/cb",
    "https://a'b.example/cb",
    "https://user:pass@client.example/cb",
  ]) {
    const response = await register(app, { redirect_uris: [uri] });
    expect(response.statusCode, uri).toBe(400);
    expect(response.json(), uri).toMatchObject({ error: "invalid_redirect_uri" });
  }
  for (const uri of [
    "https://xn--bcher-kva.example/cb",
    "https://[2001:db8::1]/cb",
    "https://10.0.0.1:8443/cb",
  ]) {
    expect((await register(app, { redirect_uris: [uri] })).statusCode, uri).toBe(201);
  }
});

test("the consent page names the redirect host beside the client's own name, and its policy allows that one origin", async () => {
  const flow = await oauthFlow();
  const registered = await register(flow.app, {
    client_name: "latchkey\u202e official\u0000",
    redirect_uris: ["https://tools.example:8443/callback"],
  });
  expect(registered.json().client_name).toBe("latchkey official");
  const page = await flow.admin.get(
    `/console/oauth/authorize?${new URLSearchParams({
      client_id: registered.json().client_id,
      redirect_uri: "https://tools.example:8443/callback",
      response_type: "code",
      code_challenge: "a".repeat(43),
      code_challenge_method: "S256",
    }).toString()}`,
  );
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain("<h1>Connect latchkey official (tools.example:8443)</h1>");
  expect(page.body).toContain("has not checked it");
  expect(page.headers["content-security-policy"]).toContain("form-action 'self' https://tools.example:8443;");
});

test("without LATCHKEY_PUBLIC_URL the issuer is the listen address whatever the Host header says", async () => {
  const { app } = await buildTestApp();
  for (const host of ["evil.example", "localhost:80", "127.0.0.1:8080"]) {
    const server = (
      await app.inject({ url: "/.well-known/oauth-authorization-server", headers: { host } })
    ).json();
    expect(server.issuer, host).toBe(ISSUER);
    expect(server.token_endpoint, host).toBe(`${ISSUER}/oauth/token`);
    const resource = (
      await app.inject({ url: "/.well-known/oauth-protected-resource", headers: { host } })
    ).json();
    expect(resource, host).toMatchObject({ resource: `${ISSUER}/mcp`, authorization_servers: [ISSUER] });
  }
  const challenge = await app.inject({ method: "POST", url: "/mcp", headers: { host: "localhost:80" } });
  expect(String(challenge.headers["www-authenticate"])).toContain(
    `resource_metadata="${ISSUER}/.well-known/oauth-protected-resource"`,
  );
});

test("with LATCHKEY_PUBLIC_URL that origin is the issuer; without it the start advises setting it", async () => {
  const configured = await buildTestApp({ env: { LATCHKEY_PUBLIC_URL: "https://latchkey.example" } });
  const server = (
    await configured.app.inject({
      url: "/.well-known/oauth-authorization-server",
      headers: { host: "x.example" },
    })
  ).json();
  expect(server.issuer).toBe("https://latchkey.example");
  const settings = (env: Record<string, string>) => startAdvice(loadConfig(env)).map((a) => a.setting);
  expect(settings({ LATCHKEY_PUBLIC_URL: "https://latchkey.example" })).not.toContain("LATCHKEY_PUBLIC_URL");
  expect(settings({ LATCHKEY_CONSOLE: "off" })).not.toContain("LATCHKEY_PUBLIC_URL");
  const advice = startAdvice(loadConfig({})).find((a) => a.setting === "LATCHKEY_PUBLIC_URL");
  expect(advice?.message).toContain("Set it to the origin clients use");
});
