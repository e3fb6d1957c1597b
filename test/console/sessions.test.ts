import { describe, expect, test } from "vitest";
import { basicAuth, buildTestApp, fakeClock } from "../helpers/build-test-app.js";
import { CONSOLE_PASSWORD, consoleUser, form, ORIGIN, signIn } from "../helpers/console-session.js";

async function setup(options: Parameters<typeof buildTestApp>[0] = {}) {
  const testApp = await buildTestApp(options);
  const owner = await testApp.createOrganization();
  return { testApp, app: testApp.app, orgId: owner.orgId, ownerKey: owner };
}

const signInAttempt = (
  app: Awaited<ReturnType<typeof setup>>["app"],
  email: string,
  password: string,
  headers = {},
) =>
  app.inject({
    method: "POST",
    url: "/console/sign-in",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, ...headers },
    payload: form({ email, password }),
  });

test("signing in sets an HttpOnly, SameSite=Lax session cookie, and pages carry a strict CSP and no framing", async () => {
  const { testApp, app, orgId } = await setup();
  await consoleUser(testApp, orgId, "admin");
  const response = await signInAttempt(app, "ADMIN@example.com", CONSOLE_PASSWORD);
  expect(response.statusCode).toBe(303);
  const cookie = String(response.headers["set-cookie"]);
  expect(cookie).toMatch(
    /^latchkey_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax$/,
  );
  const page = await app.inject({
    url: `/console/orgs/${orgId}/keys`,
    headers: { cookie: cookie.split(";")[0] },
  });
  expect(page.statusCode).toBe(200);
  expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
  expect(page.headers["content-security-policy"]).not.toContain("unsafe-inline");
  expect(page.headers["x-frame-options"]).toBe("DENY");
  expect(page.headers["cache-control"]).toBe("no-store");
  expect(page.body).not.toMatch(/<script>(?!<\/script>)/);
});

test("a wrong password and an unknown email get the same 401 page, nothing signs in, and each refusal is logged and counted", async () => {
  const { testApp, app, orgId } = await setup();
  await consoleUser(testApp, orgId, "admin");
  const wrong = await signInAttempt(app, "admin@example.com", "not the password at all");
  const unknown = await signInAttempt(app, "nobody@example.com", "not the password at all");
  for (const response of [wrong, unknown]) {
    expect(response.statusCode).toBe(401);
    expect(response.headers["set-cookie"]).toBeUndefined();
    expect(response.body).toContain("Wrong email, password or two-factor code.");
  }
  expect(testApp.logs.join("\n")).not.toContain("not the password at all");
  // Each refusal is a warn line naming the address typed; a password typed as the email never is.
  const typedInTheWrongField = await signInAttempt(app, "my secret password", "x".repeat(12));
  expect(typedInTheWrongField.statusCode).toBe(401);
  const refusals = testApp.logs
    .map((line) => JSON.parse(line) as { msg?: string; email?: string; level?: number })
    .filter((line) => line.msg === "console sign-in refused");
  expect(refusals.map((line) => line.email)).toEqual([
    "admin@example.com",
    "nobody@example.com",
    "(not an email address)",
  ]);
  expect(testApp.logs.join("\n")).not.toContain("my secret password");
  await signIn(app, "admin@example.com");
  const metrics = (await app.inject({ url: "/metrics" })).body;
  expect(metrics).toContain('latchkey_console_sign_ins_total{outcome="refused"} 3');
  expect(metrics).toContain('latchkey_console_sign_ins_total{outcome="signed_in"} 1');
});

test("a sixth attempt on one account within the window is refused with 429, even with the right password", async () => {
  const { testApp, app, orgId } = await setup();
  await consoleUser(testApp, orgId, "member");
  for (let attempt = 0; attempt < 5; attempt++) {
    expect((await signInAttempt(app, "member@example.com", "wrong password 123")).statusCode).toBe(401);
  }
  const sixth = await signInAttempt(app, "member@example.com", CONSOLE_PASSWORD);
  expect(sixth.statusCode).toBe(429);
  expect(Number(sixth.headers["retry-after"])).toBeGreaterThan(0);
  expect(sixth.headers["set-cookie"]).toBeUndefined();
});

test("attempts from one address are limited across accounts", async () => {
  const { app } = await setup();
  const statuses = [];
  for (let attempt = 0; attempt < 31; attempt++) {
    statuses.push((await signInAttempt(app, `guess${attempt}@example.com`, "wrong password 123")).statusCode);
  }
  expect(statuses.slice(0, 30).every((status) => status === 401)).toBe(true);
  expect(statuses[30]).toBe(429);
});

test("five wrong passwords from other addresses cannot lock an account: the right one from a sixth address signs in", async () => {
  const { testApp, app, orgId } = await setup();
  await consoleUser(testApp, orgId, "member");
  for (let attempt = 0; attempt < 5; attempt++) {
    const guess = await app.inject({
      method: "POST",
      url: "/console/sign-in",
      remoteAddress: `198.51.100.${attempt + 1}`,
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
      payload: form({ email: "member@example.com", password: "wrong password 123" }),
    });
    expect(guess.statusCode).toBe(401);
  }
  const owner = await app.inject({
    method: "POST",
    url: "/console/sign-in",
    remoteAddress: "203.0.113.50",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
    payload: form({ email: "member@example.com", password: CONSOLE_PASSWORD }),
  });
  expect(owner.statusCode).toBe(303);
  expect(String(owner.headers["set-cookie"])).toContain("latchkey_session=");
});

describe("behind a trusted proxy (LATCHKEY_TRUSTED_PROXIES)", () => {
  // app.inject's peer is 127.0.0.1: the proxy. The client is the X-Forwarded-For hop past it.
  const env = { LATCHKEY_TRUSTED_PROXIES: "127.0.0.1/32, 10.0.0.0/8" };

  test("junk sign-ins from many clients do not block the owner's right password, and the log names each client", async () => {
    const { testApp, app, orgId } = await setup({ env });
    await consoleUser(testApp, orgId, "admin");
    for (let attempt = 0; attempt < 30; attempt++) {
      const junk = await signInAttempt(app, `guess${attempt}@example.com`, "wrong password 123", {
        "x-forwarded-for": `198.51.100.${attempt + 1}`,
      });
      expect(junk.statusCode).toBe(401);
    }
    const right = await signInAttempt(app, "admin@example.com", CONSOLE_PASSWORD, {
      "x-forwarded-for": "203.0.113.50",
    });
    expect(right.statusCode).toBe(303);
    const addresses = testApp.logs
      .map((line) => JSON.parse(line) as { msg?: string; address?: string })
      .filter((line) => line.msg === "console sign-in refused")
      .map((line) => line.address);
    expect(addresses).toHaveLength(30);
    expect(addresses[0]).toBe("198.51.100.1");
    expect(addresses).not.toContain("127.0.0.1");
  });

  test("one client past the proxy is limited by its own address, whatever the others do", async () => {
    const { app } = await setup({ env });
    const from = (address: string, attempt: number) =>
      signInAttempt(app, `guess${attempt}@example.com`, "wrong password 123", {
        "x-forwarded-for": `${address}, 10.0.0.7`,
      });
    for (let attempt = 0; attempt < 30; attempt++)
      expect((await from("198.51.100.9", attempt)).statusCode).toBe(401);
    expect((await from("198.51.100.9", 30)).statusCode).toBe(429);
    expect((await from("198.51.100.10", 31)).statusCode).toBe(401);
  });

  test("the sign-in log and the networks check name the same client address", async () => {
    const { testApp, app, ownerKey } = await setup({ env });
    const created = await app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: ownerKey.headers,
      payload: { name: "office only", permissions: ["images:read"], allowed_cidrs: ["203.0.113.0/24"] },
    });
    const { api_id, api_key } = created.json();
    const chain = "198.51.100.77, 10.1.2.3";
    const refused = await app.inject({
      url: "/v1/api-keys",
      headers: { ...basicAuth(api_id, api_key), "x-forwarded-for": chain },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toContain("198.51.100.77");
    await signInAttempt(app, "nobody@example.com", "wrong password 123", { "x-forwarded-for": chain });
    const logged = testApp.logs
      .map((line) => JSON.parse(line) as { msg?: string; address?: string })
      .find((line) => line.msg === "console sign-in refused");
    expect(logged?.address).toBe("198.51.100.77");
  });
});

test("a session ends after 12 hours idle, and signing out revokes it at once", async () => {
  const clock = fakeClock();
  const { testApp, app, orgId } = await setup({ clock });
  await consoleUser(testApp, orgId, "admin");
  const browser = await signIn(app, "admin@example.com");
  clock.advance(11 * 3_600_000);
  expect((await browser.get(`/console/orgs/${orgId}/keys`)).statusCode).toBe(200);
  clock.advance(11 * 3_600_000);
  expect((await browser.get(`/console/orgs/${orgId}/keys`)).statusCode).toBe(200);
  clock.advance(12 * 3_600_000 + 1);
  const idle = await browser.get(`/console/orgs/${orgId}/keys`);
  expect(idle.statusCode).toBe(303);
  expect(idle.headers.location).toMatch(/^\/console\/sign-in\?next=/);

  const again = await signIn(app, "admin@example.com");
  const out = await again.post("/console/sign-out", {});
  expect(out.statusCode).toBe(303);
  expect((await again.get(`/console/orgs/${orgId}/keys`)).statusCode).toBe(303);
  const created = await again.post(`/console/orgs/${orgId}/keys`, {
    name: "after sign-out",
    permissions: "images:read",
  });
  expect(created.statusCode).toBe(401);
});

test("a session ends 7 days after sign-in, however active", async () => {
  const clock = fakeClock();
  const { testApp, app, orgId } = await setup({ clock });
  await consoleUser(testApp, orgId, "admin");
  const browser = await signIn(app, "admin@example.com");
  for (let hours = 0; hours < 7 * 24 - 10; hours += 10) {
    clock.advance(10 * 3_600_000);
    expect((await browser.get(`/console/orgs/${orgId}/keys`)).statusCode).toBe(200);
  }
  clock.advance(11 * 3_600_000);
  const ended = await browser.get(`/console/orgs/${orgId}/keys`);
  expect(ended.statusCode).toBe(303);
  expect(ended.headers.location).toMatch(/^\/console\/sign-in/);
});

test("a form without its CSRF token, or from another origin, is refused with 403 and changes nothing", async () => {
  const { testApp, app, orgId, ownerKey } = await setup();
  await consoleUser(testApp, orgId, "admin");
  const browser = await signIn(app, "admin@example.com");
  const url = `/console/orgs/${orgId}/keys`;
  const noToken = await app.inject({
    method: "POST",
    url,
    headers: { cookie: browser.cookie, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    payload: form({ name: "x", permissions: "images:read" }),
  });
  const wrongToken = await browser.post(url, { _csrf: "forged", name: "x", permissions: "images:read" });
  const crossOrigin = await browser.post(
    url,
    { name: "x", permissions: "images:read" },
    { origin: "https://evil.example" },
  );
  const noOrigin = await app.inject({
    method: "POST",
    url,
    headers: { cookie: browser.cookie, "content-type": "application/x-www-form-urlencoded" },
    payload: form({ _csrf: browser.csrf, name: "x", permissions: "images:read" }),
  });
  for (const response of [noToken, wrongToken, crossOrigin, noOrigin]) {
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain("csrf_failed");
  }
  const keys = await app.inject({ url: "/v1/api-keys", headers: ownerKey.headers });
  expect(keys.json().data).toHaveLength(1);
});

test("LATCHKEY_CONSOLE=off serves no console", async () => {
  const { app } = await setup({ env: { LATCHKEY_CONSOLE: "off" } });
  expect((await app.inject({ url: "/console/sign-in" })).statusCode).toBe(404);
});

test("behind a TLS proxy (LATCHKEY_PUBLIC_URL=https://...) the cookie is __Host- and Secure, and Origin must be the public one", async () => {
  const { testApp, app, orgId } = await setup({
    env: { LATCHKEY_PUBLIC_URL: "https://latchkey.example.com" },
  });
  await consoleUser(testApp, orgId, "admin");
  const fromLocal = await signInAttempt(app, "admin@example.com", CONSOLE_PASSWORD);
  expect(fromLocal.statusCode).toBe(403);
  const response = await signInAttempt(app, "admin@example.com", CONSOLE_PASSWORD, {
    origin: "https://latchkey.example.com",
  });
  expect(response.statusCode).toBe(303);
  expect(String(response.headers["set-cookie"])).toMatch(
    /^__Host-latchkey_session=[^;]+; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax; Secure$/,
  );
  const metadata = (await app.inject({ url: "/.well-known/oauth-protected-resource" })).json();
  expect(metadata).toMatchObject({
    resource: "https://latchkey.example.com/mcp",
    authorization_servers: ["https://latchkey.example.com"],
  });
});
