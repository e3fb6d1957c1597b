import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { InjectOptions } from "fastify";
import { describe, expect, test } from "vitest";
import { basicAuth, fakeClock, type TestKey } from "../helpers/build-test-app.js";
import { keyWith } from "../helpers/http-keys.js";
import { creditsUsed, platformApp } from "../helpers/platform.js";
import { tempDir } from "../helpers/processes.js";

const ROUTES = [
  { method: "POST", path: "/v1/image", permission: "images:create", credits: 1 },
  { method: "GET", path: "/v1/proxies/*", permission: "proxies:read", group: "proxy:read" },
  { method: "*", path: "/v1/usage/**", permission: "usage:read" },
  { path: "/v1/**", permission: "images:read" },
];

/** An app whose LATCHKEY_ROUTES file holds `routes`, and a forward-auth request helper. */
async function gatewayApp(routes: unknown[] = ROUTES, env: Record<string, string> = {}) {
  const file = join(tempDir(), "routes.json");
  writeFileSync(file, JSON.stringify(routes, null, 2));
  const platform = await platformApp({ env: { LATCHKEY_ROUTES: file, ...env }, clock: fakeClock() });
  const { testApp, serviceToken } = platform;
  /** The gateway's subrequest for `method uri` made by a caller with `auth` headers. */
  const forward = (
    method: string,
    uri: string,
    auth: { authorization?: string } = {},
    extra: Partial<InjectOptions> & { headers?: Record<string, string> } = {},
  ) =>
    testApp.app.inject({
      method: "GET",
      url: "/v1/forward-auth",
      ...extra,
      headers: {
        "x-latchkey-service-token": serviceToken,
        "x-forwarded-method": method,
        "x-forwarded-uri": uri,
        ...auth,
        ...extra.headers,
      },
    });
  return { ...platform, forward };
}

const headersOf = (key: TestKey) => key.headers;

describe("forward-auth: the route table", () => {
  test("allowed: 200, empty body, the caller's organization and key, the decision's headers", async () => {
    const { forward, owner, testApp } = await gatewayApp();
    const worker = await keyWith(testApp, owner, ["images:create"]);
    const response = await forward("POST", "/v1/image?size=large", headersOf(worker));
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe("");
    expect(response.headers["x-latchkey-organization-id"]).toBe(owner.orgId);
    expect(response.headers["x-latchkey-key-id"]).toBe(worker.id);
    expect(response.headers["x-renders-allowed"]).toBe("50");
    expect(response.headers["x-renders-consumed"]).toBe("1");
    expect(response.headers["x-renders-used"]).toBe("1");
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(await creditsUsed(testApp, owner.orgId)).toBe(1);
  });

  test("the first matching route wins, even when a later one would allow", async () => {
    const { forward, owner, testApp } = await gatewayApp();
    const reader = await keyWith(testApp, owner, ["images:read"]);
    // GET /v1/proxies/prx_1 is the proxies route, not the catch-all /v1/** that images:read passes.
    const proxies = await forward("GET", "/v1/proxies/prx_1", headersOf(reader));
    expect(proxies.statusCode).toBe(403);
    expect(proxies.json().message).toContain("proxies:read");
    // A POST to the same path is not that route's method: the catch-all takes it.
    const post = await forward("POST", "/v1/proxies/prx_1", headersOf(reader));
    expect(post.statusCode).toBe(200);
    expect(post.headers.ratelimit).toBeUndefined();
  });

  test("* stays within one segment, ** crosses segments, and method * matches any method", async () => {
    const { forward, owner } = await gatewayApp();
    const auth = headersOf(owner);
    const one = await forward("GET", "/v1/proxies/prx_1", auth);
    expect(one.headers["ratelimit-policy"]).toBe('"proxy:read";q=100;w=60');
    // Two segments after /v1/proxies/, and none: not the proxies route, so no group counted.
    for (const uri of ["/v1/proxies/a/b", "/v1/proxies"]) {
      const other = await forward("GET", uri, auth);
      expect(other.statusCode).toBe(200);
      expect(other.headers["ratelimit-policy"]).toBeUndefined();
    }
    const deep = await forward("DELETE", "/v1/usage/2026/11/22", auth);
    expect(deep.statusCode).toBe(200);
  });

  test("a request no route matches: 404 no_route naming it", async () => {
    const { forward, owner } = await gatewayApp();
    const response = await forward("GET", "/v2/image", headersOf(owner));
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      statusCode: 404,
      error: "Not Found",
      message: "No route of the table matches GET /v2/image.",
      code: "no_route",
    });
  });

  test("without LATCHKEY_ROUTES every request is no_route", async () => {
    const { testApp, serviceToken, owner } = await platformApp();
    const response = await testApp.app.inject({
      method: "GET",
      url: "/v1/forward-auth",
      headers: { "x-latchkey-service-token": serviceToken, "x-forwarded-uri": "/v1/image", ...owner.headers },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe("no_route");
    // Not "no route of the table matches": there is no table, and the message says which setting makes one.
    expect(response.json().message).toBe(
      "No route table is configured (LATCHKEY_ROUTES), so forward-auth matches no request, GET /v1/image included. The operator sets LATCHKEY_ROUTES to a JSON file of routes (docs/gateways.md).",
    );
  });

  test("with LATCHKEY_FORWARDED_HEADERS=x-original, X-Original-Method and X-Original-URI are the source", async () => {
    const { testApp, serviceToken, owner } = await gatewayApp(ROUTES, {
      LATCHKEY_FORWARDED_HEADERS: "x-original",
    });
    const response = await testApp.app.inject({
      method: "GET",
      url: "/v1/forward-auth",
      headers: {
        "x-latchkey-service-token": serviceToken,
        "x-original-method": "POST",
        "x-original-uri": "/v1/image",
        ...owner.headers,
      },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers["x-renders-consumed"]).toBe("1");
  });

  test("without a forwarded method, the subrequest's own method is the original one", async () => {
    const { testApp, serviceToken, owner } = await gatewayApp();
    const response = await testApp.app.inject({
      method: "POST",
      url: "/v1/forward-auth",
      headers: {
        "x-latchkey-service-token": serviceToken,
        "x-forwarded-uri": "/v1/image",
        "content-type": "image/png",
        ...owner.headers,
      },
      // nginx may forward the original body: it is drained unread, whatever its type.
      payload: Buffer.alloc(1000, 7),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers["x-renders-consumed"]).toBe("1");
  });

  test("no original URI: 400", async () => {
    const { testApp, serviceToken, owner } = await gatewayApp();
    const response = await testApp.app.inject({
      method: "GET",
      url: "/v1/forward-auth",
      headers: { "x-latchkey-service-token": serviceToken, "x-forwarded-method": "GET", ...owner.headers },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ statusCode: 400, code: "invalid_request" });
    expect(response.json().message).toContain("X-Forwarded-Uri");
  });

  test.each([
    ["/v1/proxies/a%2Fb", "an encoded '/'"],
    ["/v1/usage/../image", "a dot segment ('..')"],
    ["/v1/usage/a/..;/..;/image", "a ';'"],
    ["/v1/usage/%2e%2e/image", "a dot segment ('..')"],
    ["/v1/usage/\u00ef\u00bc\u008e\u00ef\u00bc\u008e/image", "a full-width dot"],
    ["/v1/usage\\..\\image", "a '\\'"],
    ["/v1/usage/%255c", "a double-encoded escape"],
    ["/v1/%00", "a NUL"],
    ["/v1/%zz", "a bad percent-escape"],
    ["v1/image", "it does not start with '/'"],
  ])("a disguised or malformed path (%s): 400 naming it, no route matched", async (uri, reason) => {
    const { forward, owner, testApp } = await gatewayApp();
    const response = await forward("POST", uri, headersOf(owner));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ statusCode: 400, error: "Bad Request", code: "invalid_request" });
    expect(response.json().message).toContain(reason);
    expect(await creditsUsed(testApp, owner.orgId)).toBe(0);
  });

  test("a percent-encoded path is matched as the upstream will read it", async () => {
    const { forward, owner } = await gatewayApp();
    const response = await forward("POST", "/v1/%69mage", headersOf(owner));
    expect(response.statusCode).toBe(200);
    expect(response.headers["x-renders-consumed"]).toBe("1");
  });
});

describe("forward-auth: one source of the original request", () => {
  test("by default, a request that also carries X-Original-URI or X-Original-Method is 400, never matched", async () => {
    const { forward, owner, testApp } = await gatewayApp();
    const extras: Record<string, string>[] = [
      { "x-original-uri": "/v1/image" },
      { "x-original-method": "POST" },
    ];
    for (const extra of extras) {
      const response = await forward("POST", "/v1/image", headersOf(owner), { headers: extra });
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe("invalid_request");
      expect(response.json().message).toContain("X-Original-Method/X-Original-URI");
      expect(response.json().message).toContain("LATCHKEY_FORWARDED_HEADERS=x-forwarded");
    }
    expect(await creditsUsed(testApp, owner.orgId)).toBe(0);
  });

  test("with x-original, the X-Forwarded pair a caller could send is refused, and X-Forwarded-Uri alone is not read", async () => {
    const { testApp, serviceToken, owner } = await gatewayApp(ROUTES, {
      LATCHKEY_FORWARDED_HEADERS: "x-original",
    });
    const ask = (headers: Record<string, string>) =>
      testApp.app.inject({
        url: "/v1/forward-auth",
        headers: { "x-latchkey-service-token": serviceToken, ...owner.headers, ...headers },
      });
    const both = await ask({ "x-original-uri": "/v1/image", "x-forwarded-uri": "/v1/usage/x" });
    expect(both.statusCode).toBe(400);
    expect(both.json().message).toContain("X-Forwarded-Method/X-Forwarded-Uri");
    const forwardedOnly = await ask({ "x-forwarded-uri": "/v1/image" });
    expect(forwardedOnly.statusCode).toBe(400);
    expect(forwardedOnly.json().message).toContain("X-Original-URI");
  });

  test.each([
    ["x-forwarded-uri", ["/v1/usage/x", "/v1/image"]],
    ["x-forwarded-method", ["GET", "POST"]],
    ["authorization", ["Basic eDp5", "Basic eTp6"]],
    ["x-latchkey-refusal-status", ["403", "403"]],
    // Joined, a caller's own header and the gateway's would read as one list of hops.
    ["x-forwarded-for", ["203.0.113.7", "198.51.100.23"]],
  ])("a repeated %s header is 400 naming it, never joined and matched", async (name, values) => {
    const { forward, owner, testApp } = await gatewayApp();
    const response = await forward("POST", "/v1/image", headersOf(owner), {
      headers: { [name]: values } as unknown as Record<string, string>,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "invalid_request" });
    expect(response.json().message).toContain(`repeats the ${name} header`);
    expect(await creditsUsed(testApp, owner.orgId)).toBe(0);
  });

  test("an original method that is not a method is 400", async () => {
    const { forward, owner } = await gatewayApp();
    const response = await forward("GET, POST", "/v1/image", headersOf(owner));
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toContain("X-Forwarded-Method");
  });
});

describe("forward-auth: refusals carry the decision's status, headers and body", () => {
  test("the service token is checked first: missing, wrong or a customer key is 401 invalid_service_token", async () => {
    const { testApp, owner } = await gatewayApp();
    for (const token of [undefined, "lkst_nope", owner.secret]) {
      const response = await testApp.app.inject({
        method: "GET",
        url: "/v1/forward-auth",
        headers: {
          ...(token ? { "x-latchkey-service-token": token } : {}),
          // Even an unmatched route: the token comes first.
          "x-forwarded-uri": "/nowhere",
          ...owner.headers,
        },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().code).toBe("invalid_service_token");
      expect(response.headers["www-authenticate"]).toBeUndefined();
    }
  });

  test.each([
    ["no Authorization", {}],
    ["a bearer token", { authorization: "Bearer x" }],
    ["a wrong secret", basicAuth("lkid_0000000000000000000000", "lksk_nope")],
  ])("%s: 401 with WWW-Authenticate and the error body", async (_label, auth) => {
    const { forward } = await gatewayApp();
    const response = await forward("POST", "/v1/image", auth);
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toBe('Basic realm="latchkey", charset="UTF-8"');
    expect(response.headers["x-latchkey-organization-id"]).toBeUndefined();
    expect(response.json()).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      message: expect.any(String),
      code: "unauthorized",
    });
  });

  test("a missing permission: 403 with the error body, no organization header", async () => {
    const { forward, owner, testApp } = await gatewayApp();
    const reader = await keyWith(testApp, owner, ["images:read"]);
    const response = await forward("POST", "/v1/image", headersOf(reader));
    expect(response.statusCode).toBe(403);
    expect(response.headers["x-latchkey-organization-id"]).toBeUndefined();
    expect(response.headers["x-latchkey-key-id"]).toBeUndefined();
    expect(response.json()).toMatchObject({ statusCode: 403, code: "missing_permission" });
  });

  test("an exhausted group: 429 rate_limited with RateLimit headers and Retry-After", async () => {
    const { forward, owner, testApp } = await gatewayApp();
    await testApp.services.store.setQuota(owner.orgId, "proxy:read", 1);
    expect((await forward("GET", "/v1/proxies/a", headersOf(owner))).statusCode).toBe(200);
    const response = await forward("GET", "/v1/proxies/b", headersOf(owner));
    expect(response.statusCode).toBe(429);
    expect(response.headers["retry-after"]).toBe("60");
    expect(response.headers["ratelimit-policy"]).toBe('"proxy:read";q=1;w=60');
    expect(response.headers.ratelimit).toBe('"proxy:read";r=0;t=60');
    expect(response.json()).toMatchObject({
      statusCode: 429,
      error: "Too Many Requests",
      code: "rate_limited",
    });
  });

  test("credits used up: 429 plan_limit_exceeded with x-renders headers, no Retry-After", async () => {
    const { forward, owner, testApp } = await gatewayApp();
    await testApp.services.plans.change(owner.orgId, { imageCredits: 1 });
    expect((await forward("POST", "/v1/image", headersOf(owner))).statusCode).toBe(200);
    const response = await forward("POST", "/v1/image", headersOf(owner));
    expect(response.statusCode).toBe(429);
    expect(response.headers["retry-after"]).toBeUndefined();
    expect(response.headers.ratelimit).toBeUndefined();
    expect(response.headers["ratelimit-policy"]).toBeUndefined();
    expect(response.headers["x-renders-allowed"]).toBe("1");
    expect(response.headers["x-renders-consumed"]).toBe("0");
    expect(response.headers["x-renders-used"]).toBe("1");
    expect(response.json()).toMatchObject({
      statusCode: 429,
      error: "Plan limit exceeded",
      code: "plan_limit_exceeded",
    });
    expect(response.json().message).toContain("1 of 1 image credits");
  });
});
