import { describe, expect, test } from "vitest";
import { buildTestApp, type TestKey, ownerApp } from "../helpers/build-test-app.js";
import { keyWith, rateLimitOf, seedKey, UNKNOWN_KEY_ID } from "../helpers/http-keys.js";
import { KEY_ROUTES, routeRequest } from "../helpers/key-routes.js";

/** `RateLimit-Policy` and `RateLimit` on every response from the rate-limit step on, and only there. */

describe.each(KEY_ROUTES)("$label", (route) => {
  test("carries the policy of its group and counts down the remaining requests", async () => {
    const { testApp, owner } = await ownerApp();
    const quota = route.group === "api-key:read" ? 100 : 20;
    for (let i = 1; i <= 3; i++) {
      const target = await seedKey(testApp, owner);
      const response = await testApp.app.inject(routeRequest(route, target.id, owner.headers));
      expect(response.statusCode).toBe(route.successStatus);
      expect(response.headers["ratelimit-policy"]).toBe(`"${route.group}";q=${quota};w=60`);
      expect(rateLimitOf(response)).toEqual({ group: route.group, remaining: quota - i });
    }
  });
});

test("list and retrieve share api-key:read; create, update and disable share api-key:write", async () => {
  const { testApp, owner } = await ownerApp();
  const target = await seedKey(testApp, owner);
  const seen: Array<{ group: string; remaining: number } | undefined> = [];
  for (const route of KEY_ROUTES) {
    seen.push(rateLimitOf(await testApp.app.inject(routeRequest(route, target.id, owner.headers))));
  }
  expect(seen).toEqual([
    { group: "api-key:read", remaining: 99 },
    { group: "api-key:write", remaining: 19 },
    { group: "api-key:read", remaining: 98 },
    { group: "api-key:write", remaining: 18 },
    { group: "api-key:write", remaining: 17 },
  ]);
});

describe("errors after the rate-limit step carry the headers", () => {
  test.each([
    ["400 bad body", 400, { method: "POST", url: "/v1/api-keys", payload: { permissions: 1 } }],
    ["400 bad query", 400, { method: "GET", url: "/v1/api-keys?count=0" }],
    ["400 bad id", 400, { method: "GET", url: "/v1/api-keys/lkid_x" }],
    ["404 unknown id", 404, { method: "DELETE", url: `/v1/api-keys/${UNKNOWN_KEY_ID}` }],
    [
      "415 not JSON",
      415,
      { method: "POST", url: "/v1/api-keys", payload: "x", headers: { "content-type": "text/plain" } },
    ],
  ] as const)("%s", async (_label, status, request) => {
    const { testApp, owner } = await ownerApp();
    const response = await testApp.app.inject({
      ...request,
      headers: { ...owner.headers, ...("headers" in request ? request.headers : {}) },
    });
    expect(response.statusCode).toBe(status);
    expect(response.headers["ratelimit-policy"]).toMatch(/^"api-key:(read|write)";q=\d+;w=60$/);
    expect(rateLimitOf(response)?.remaining).toEqual(expect.any(Number));
  });

  test("403 insufficient_authority", async () => {
    const { testApp, owner } = await ownerApp();
    const manager = await keyWith(testApp, owner, ["api_keys:create_update"]);
    const response = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: manager.headers,
      payload: { permissions: ["usage:read"] },
    });
    expect(response.statusCode).toBe(403);
    expect(rateLimitOf(response)).toEqual({ group: "api-key:write", remaining: 19 });
  });
});

describe("responses before the rate-limit step do not", () => {
  test.each([
    ["401", 401, (_reader: TestKey) => ({})],
    ["403 missing_permission", 403, (reader: TestKey) => reader.headers],
  ])("%s has no rate-limit headers", async (_label, status, headersOf) => {
    const { testApp, owner } = await ownerApp();
    const reader = await keyWith(testApp, owner, ["api_keys:read"]);
    const response = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: headersOf(reader),
      payload: { permissions: [] },
    });
    expect(response.statusCode).toBe(status);
    expect(response.headers["ratelimit-policy"]).toBeUndefined();
    expect(response.headers.ratelimit).toBeUndefined();
    expect(response.headers["retry-after"]).toBeUndefined();
  });

  test("405 has no rate-limit headers", async () => {
    const { testApp, owner } = await ownerApp();
    const response = await testApp.app.inject({ method: "PUT", url: "/v1/api-keys", headers: owner.headers });
    expect(response.statusCode).toBe(405);
    expect(response.headers.ratelimit).toBeUndefined();
  });

  test("health, readiness and the OpenAPI document are not management responses", async () => {
    const { testApp } = await ownerApp();
    for (const url of ["/healthz", "/readyz", "/openapi.json"]) {
      const response = await testApp.app.inject({ method: "GET", url });
      expect(response.headers.ratelimit).toBeUndefined();
    }
  });
});

test("LATCHKEY_RATE_WINDOW_SECONDS shows as w in the policy", async () => {
  const testApp = await buildTestApp({ env: { LATCHKEY_RATE_WINDOW_SECONDS: "7" } });
  const owner = await testApp.createOrganization();
  const response = await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: owner.headers });
  expect(response.headers["ratelimit-policy"]).toBe('"api-key:read";q=100;w=7');
});
