import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { expect, test } from "vitest";
import { buildTestApp, ownerApp } from "../helpers/build-test-app.js";
import { sampleValue } from "../helpers/metrics-page.js";
import { tempDir } from "../helpers/processes.js";

/** `GET /metrics`: what an operator's Prometheus reads, and that every counted event shows there. */

async function scrape(app: FastifyInstance): Promise<string> {
  const response = await app.inject({ method: "GET", url: "/metrics" });
  expect(response.statusCode).toBe(200);
  expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

test("requests are counted and timed by route pattern and status, never by raw URL", async () => {
  const { app, owner } = await ownerApp();
  const id = "key_0000000000000000000000";
  for (let i = 0; i < 3; i++) {
    const response = await app.inject({ method: "GET", url: `/v1/api-keys/${id}`, headers: owner.headers });
    expect(response.statusCode).toBe(404);
  }
  await app.inject({ method: "GET", url: "/v1/api-keys" });
  await app.inject({ method: "GET", url: "/no/such/path/key_1234" });

  const page = await scrape(app);
  const byId = { method: "GET", route: "/v1/api-keys/:id", status: "404" };
  expect(sampleValue(page, "latchkey_http_requests_total", byId)).toBe(3);
  expect(sampleValue(page, "latchkey_http_request_duration_seconds_count", byId)).toBe(3);
  expect(sampleValue(page, "latchkey_http_request_duration_seconds_bucket", { ...byId, le: "+Inf" })).toBe(3);
  expect(
    sampleValue(page, "latchkey_http_requests_total", {
      method: "GET",
      route: "/v1/api-keys",
      status: "401",
    }),
  ).toBe(1);
  expect(
    sampleValue(page, "latchkey_http_requests_total", { method: "GET", route: "unmatched", status: "404" }),
  ).toBe(1);
  expect(page).not.toContain(id);
  expect(page).not.toContain("key_1234");
  expect(page).not.toContain(owner.orgId);
});

test("access and rate-limit decisions are counted by outcome, surface and group", async () => {
  const { app, owner } = await ownerApp();
  await app.inject({ method: "GET", url: "/v1/api-keys" });
  // api-key:write allows 20 requests per minute: the 21st create is limited.
  for (let i = 0; i < 21; i++) {
    await app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: { ...owner.headers, "content-type": "application/json" },
      payload: { permissions: [] },
    });
  }
  const page = await scrape(app);
  expect(
    sampleValue(page, "latchkey_access_decisions_total", { surface: "rest", outcome: "unauthorized" }),
  ).toBe(1);
  expect(sampleValue(page, "latchkey_access_decisions_total", { surface: "rest", outcome: "allowed" })).toBe(
    20,
  );
  expect(
    sampleValue(page, "latchkey_access_decisions_total", { surface: "rest", outcome: "rate_limited" }),
  ).toBe(1);
  const write = { group: "api-key:write" };
  expect(sampleValue(page, "latchkey_rate_limit_decisions_total", { ...write, outcome: "allowed" })).toBe(20);
  expect(sampleValue(page, "latchkey_rate_limit_decisions_total", { ...write, outcome: "limited" })).toBe(1);
});

test("authorize decisions and the credits they consume are counted", async () => {
  const testApp = await buildTestApp();
  const owner = await testApp.createOrganization();
  const { token } = await testApp.services.serviceTokens.create("renderer");
  const ask = (authorization: string | null, credits: number) =>
    testApp.app.inject({
      method: "POST",
      url: "/v1/authorize",
      headers: { "x-latchkey-service-token": token, "content-type": "application/json" },
      payload: { authorization, permission: "images:create", credits },
    });
  expect((await ask(owner.headers.authorization, 3)).json()).toMatchObject({ allowed: true });
  expect((await ask(owner.headers.authorization, 4)).json()).toMatchObject({ allowed: true });
  expect((await ask(null, 1)).json()).toMatchObject({ allowed: false, status: 401 });
  // 50 credits per period by default: 7 used, 44 more would pass the allowance.
  expect((await ask(owner.headers.authorization, 44)).json()).toMatchObject({ allowed: false, status: 429 });

  const page = await scrape(testApp.app);
  const authorize = { surface: "authorize" };
  expect(sampleValue(page, "latchkey_access_decisions_total", { ...authorize, outcome: "allowed" })).toBe(2);
  expect(
    sampleValue(page, "latchkey_access_decisions_total", { ...authorize, outcome: "unauthorized" }),
  ).toBe(1);
  expect(
    sampleValue(page, "latchkey_access_decisions_total", { ...authorize, outcome: "plan_limit_exceeded" }),
  ).toBe(1);
  expect(sampleValue(page, "latchkey_credits_consumed_total")).toBe(7);
});

test("the limiter backend and the database are reported; SQLite has no pool gauge", async () => {
  const { app } = await buildTestApp();
  const page = await scrape(app);
  expect(sampleValue(page, "latchkey_rate_limiter_backend", { backend: "memory" })).toBe(1);
  expect(sampleValue(page, "latchkey_rate_limiter_backend", { backend: "redis" })).toBe(0);
  expect(sampleValue(page, "latchkey_rate_limiter_degraded")).toBe(0);
  expect(sampleValue(page, "latchkey_database_info", { dialect: "sqlite" })).toBe(1);
  expect(page).not.toContain("latchkey_database_pool_connections");
  // Node's own process metrics come with them.
  expect(sampleValue(page, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
});

test("LATCHKEY_METRICS=off serves no /metrics", async () => {
  const { app } = await buildTestApp({ env: { LATCHKEY_METRICS: "off" } });
  const response = await app.inject({ method: "GET", url: "/metrics" });
  expect(response.statusCode).toBe(404);
  expect(response.json()).toMatchObject({ code: "not_found" });
});

test("forward-auth decisions are counted under their own surface, with the credits they consume", async () => {
  const routes = join(tempDir(), "routes.json");
  writeFileSync(
    routes,
    JSON.stringify([{ method: "POST", path: "/v1/image", permission: "images:create", credits: 2 }]),
  );
  const testApp = await buildTestApp({ env: { LATCHKEY_ROUTES: routes } });
  const owner = await testApp.createOrganization();
  const { token } = await testApp.services.serviceTokens.create("gateway");
  const forward = (headers: Record<string, string>) =>
    testApp.app.inject({
      method: "GET",
      url: "/v1/forward-auth",
      headers: {
        "x-latchkey-service-token": token,
        "x-forwarded-method": "POST",
        "x-forwarded-uri": "/v1/image",
        ...headers,
      },
    });
  expect((await forward(owner.headers)).statusCode).toBe(200);
  expect((await forward({})).statusCode).toBe(401);

  const page = await scrape(testApp.app);
  const surface = { surface: "forward_auth" };
  expect(sampleValue(page, "latchkey_access_decisions_total", { ...surface, outcome: "allowed" })).toBe(1);
  expect(sampleValue(page, "latchkey_access_decisions_total", { ...surface, outcome: "unauthorized" })).toBe(
    1,
  );
  expect(sampleValue(page, "latchkey_credits_consumed_total")).toBe(2);
  expect(
    sampleValue(page, "latchkey_http_requests_total", {
      method: "GET",
      route: "/v1/forward-auth",
      status: "401",
    }),
  ).toBe(1);
});
