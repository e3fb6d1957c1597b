import { describe, expect, test } from "vitest";
import { basicAuth, fakeClock } from "../helpers/build-test-app.js";
import { keyWith, seedDisable } from "../helpers/http-keys.js";
import { creditsUsed, platformApp } from "../helpers/platform.js";

const WWW_AUTHENTICATE = 'Basic realm="latchkey", charset="UTF-8"';

describe("POST /v1/authorize: the service token comes first", () => {
  const body = { authorization: null, permission: "images:create" };

  test.each([
    ["missing", null],
    ["empty", ""],
    ["a typo (bad checksum)", "lkst_0000000000000000000000000000000000000"],
  ])("%s service token: 401 invalid_service_token, never the caller's 401", async (_label, token) => {
    const { authorize } = await platformApp();
    const response = await authorize(body, token);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      message: expect.stringContaining("X-Latchkey-Service-Token"),
      code: "invalid_service_token",
    });
    expect(response.headers["www-authenticate"]).toBeUndefined();
  });

  test("a well-formed token that was never issued, and a revoked one, are refused", async () => {
    const { testApp, authorize, serviceToken } = await platformApp();
    // Another deployment's token: right shape and checksum, unknown here.
    const stranger = await platformApp();
    expect((await authorize(body, stranger.serviceToken)).json().code).toBe("invalid_service_token");

    expect((await authorize(body)).statusCode).toBe(200);
    const [record] = await testApp.services.serviceTokens.list();
    await testApp.services.serviceTokens.revoke(record?.id as string);
    const refused = await authorize(body, serviceToken);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe("invalid_service_token");
  });

  test("a customer's api_key is not a service token, even the owner's", async () => {
    const { authorize, owner } = await platformApp();
    const response = await authorize(body, owner.secret);
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe("invalid_service_token");
    // Nor the whole Basic header.
    expect((await authorize(body, owner.headers.authorization)).json().code).toBe("invalid_service_token");
  });

  test("a service token is not a customer's credential: a 401 decision", async () => {
    const { testApp, authorize, serviceToken, owner } = await platformApp();
    const [record] = await testApp.services.serviceTokens.list();
    for (const authorization of [
      basicAuth(record?.id as string, serviceToken).authorization,
      basicAuth(owner.apiId, serviceToken).authorization,
      `Bearer ${serviceToken}`,
      serviceToken,
    ]) {
      const response = await authorize({ authorization, permission: "images:create" });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        allowed: false,
        status: 401,
        organization_id: null,
        key: null,
      });
      expect(response.json().error.code).toBe("unauthorized");
    }
  });

  test("the token is checked before the body: no token and a bad body is still 401", async () => {
    const { authorize } = await platformApp();
    const response = await authorize({ permission: "nope", credits: 0 }, null);
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe("invalid_service_token");
  });
});

describe("POST /v1/authorize: a bad body is the platform's bug, a 400", () => {
  test.each([
    ["unknown permission", { permission: "images:fly" }, "/permission", /images:fly/],
    ["unknown group", { permission: "images:create", group: "image:write" }, "/group", /image:write/],
    ["credits 0", { permission: "images:create", credits: 0 }, "/credits", /an integer from 1 to 1000000/],
    ["credits -1", { permission: "images:create", credits: -1 }, "/credits", /an integer from 1 to 1000000/],
    ["credits 1.5", { permission: "images:create", credits: 1.5 }, "/credits", /integer/],
    ["credits as a string", { permission: "images:create", credits: "1" }, "/credits", /integer/],
    ["unknown member", { permission: "images:create", credit: 1 }, "/credit", /not a known field/],
    ["unknown protocol", { permission: "images:create", protocol: "grpc" }, "/protocol", /./],
  ])("%s", async (_label, fields, path, message) => {
    const { authorize, owner, testApp } = await platformApp();
    const response = await authorize({ authorization: owner.headers.authorization, ...fields });
    expect(response.statusCode).toBe(400);
    const error = response.json();
    expect(error).toMatchObject({ statusCode: 400, error: "Bad Request", code: "invalid_request" });
    expect(error.message).toMatch(message);
    expect(error.validation_errors.map((issue: { path: string }) => issue.path)).toContain(path);
    // A refused request consumed nothing.
    expect(await creditsUsed(testApp, owner.orgId)).toBe(0);
  });

  test("the authorization member is required (null says there was none)", async () => {
    const { authorize } = await platformApp();
    const response = await authorize({ permission: "images:create" });
    expect(response.statusCode).toBe(400);
    expect(response.json().validation_errors).toEqual([{ path: "/authorization", message: "is required" }]);
  });

  test("not JSON: 415; other methods: 405", async () => {
    const { testApp, serviceToken } = await platformApp();
    const headers = { "x-latchkey-service-token": serviceToken };
    const text = await testApp.app.inject({
      method: "POST",
      url: "/v1/authorize",
      headers: { ...headers, "content-type": "text/plain" },
      payload: "authorize me",
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().code).toBe("unsupported_media_type");
    const get = await testApp.app.inject({ method: "GET", url: "/v1/authorize", headers });
    expect(get.statusCode).toBe(405);
  });
});

describe("POST /v1/authorize: the decisions", () => {
  test.each([
    ["null", null],
    ["empty", ""],
    ["a bearer token", "Bearer x"],
    ["Basic with garbage", "Basic !!!"],
    ["Basic without a colon", `Basic ${Buffer.from("lkid_nobody").toString("base64")}`],
    ["an unknown api_id", basicAuth("lkid_0000000000000000000000", "lksk_x").authorization],
  ])("%s authorization: 401 with WWW-Authenticate in headers", async (_label, authorization) => {
    const { authorize } = await platformApp();
    const response = await authorize({ authorization, permission: "images:create", credits: 1 });
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.json()).toEqual({
      allowed: false,
      status: 401,
      organization_id: null,
      key: null,
      headers: { "WWW-Authenticate": WWW_AUTHENTICATE },
      error: {
        statusCode: 401,
        error: "Unauthorized",
        message: expect.any(String),
        code: "unauthorized",
      },
    });
  });

  test("a wrong secret and a disabled key: the same 401, nothing consumed", async () => {
    const { testApp, authorize, owner } = await platformApp();
    const worker = await keyWith(testApp, owner, ["images:create"]);
    const wrong = await authorize({
      authorization: basicAuth(worker.apiId, `${worker.secret}x`).authorization,
      permission: "images:create",
      credits: 1,
    });
    await seedDisable(testApp, owner, worker);
    const disabled = await authorize({
      authorization: worker.headers.authorization,
      permission: "images:create",
      credits: 1,
    });
    for (const response of [wrong, disabled]) {
      expect(response.json()).toMatchObject({ allowed: false, status: 401, key: null });
      expect(response.json().headers).toEqual({ "WWW-Authenticate": WWW_AUTHENTICATE });
    }
    expect(wrong.json().error).toEqual(disabled.json().error);
    expect(await creditsUsed(testApp, owner.orgId)).toBe(0);
  });

  test("a key without the permission: 403 missing_permission naming it, with the caller", async () => {
    const { testApp, authorize, owner } = await platformApp();
    const reader = await keyWith(testApp, owner, ["images:read"]);
    const response = await authorize({
      authorization: reader.headers.authorization,
      permission: "images:create",
      credits: 1,
    });
    expect(response.json()).toMatchObject({
      allowed: false,
      status: 403,
      organization_id: owner.orgId,
      key: { id: reader.id, api_id: reader.apiId, permissions: ["images:read"] },
      headers: {},
      error: { statusCode: 403, error: "Forbidden", code: "missing_permission" },
    });
    expect(response.json().error.message).toContain("images:create");
    expect(await creditsUsed(testApp, owner.orgId)).toBe(0);
  });

  test("a plan without proxies: 403 plan_restricted", async () => {
    const { testApp, authorize, owner } = await platformApp();
    await testApp.services.plans.change(owner.orgId, { proxies: false });
    const response = await authorize({
      authorization: owner.headers.authorization,
      permission: "proxies:read",
      group: "proxy:read",
    });
    expect(response.json()).toMatchObject({
      allowed: false,
      status: 403,
      headers: {},
      error: { statusCode: 403, code: "plan_restricted" },
    });
    expect(response.json().error.message).toContain("proxies");
    // Storage destinations are still on.
    const other = await authorize({
      authorization: owner.headers.authorization,
      permission: "storage_destinations:read",
    });
    expect(other.json().allowed).toBe(true);
  });

  test("an exhausted group: 429 rate_limited with RateLimit headers and Retry-After", async () => {
    const { testApp, authorize, owner } = await platformApp({ clock: fakeClock() });
    await testApp.services.store.setQuota(owner.orgId, "proxy:read", 2);
    const ask = () =>
      authorize({
        authorization: owner.headers.authorization,
        permission: "proxies:read",
        group: "proxy:read",
      });
    const first = await ask();
    expect(first.json()).toMatchObject({ allowed: true, status: 200, error: null });
    expect(first.json().headers).toEqual({
      "RateLimit-Policy": '"proxy:read";q=2;w=60',
      RateLimit: expect.stringMatching(/^"proxy:read";r=1;t=\d+$/),
    });
    await ask();
    const refused = await ask();
    expect(refused.json()).toMatchObject({ allowed: false, status: 429 });
    expect(refused.json().headers).toEqual({
      "RateLimit-Policy": '"proxy:read";q=2;w=60',
      RateLimit: expect.stringMatching(/^"proxy:read";r=0;t=60$/),
      "Retry-After": "60",
    });
    expect(refused.json().error).toEqual({
      statusCode: 429,
      error: "Too Many Requests",
      message:
        "Rate limit exceeded. The proxy:read operation group allows 2 requests per minute per organization. If you need a higher limit, contact support.",
      code: "rate_limited",
    });
    // The window slides: after it, the group admits again.
    testApp.clock?.advance(60_000);
    expect((await ask()).json().allowed).toBe(true);
  });

  test("protocol mcp: the same decision without rate-limit headers", async () => {
    const { testApp, authorize, owner } = await platformApp();
    await testApp.services.store.setQuota(owner.orgId, "proxy:read", 1);
    const ask = () =>
      authorize({
        authorization: owner.headers.authorization,
        permission: "proxies:read",
        group: "proxy:read",
        protocol: "mcp",
      });
    expect((await ask()).json()).toMatchObject({ allowed: true, headers: {} });
    const refused = (await ask()).json();
    expect(refused).toMatchObject({ allowed: false, status: 429, headers: {} });
    expect(refused.error.code).toBe("rate_limited");
  });

  test("allowed with credits: x-renders headers, the organization and the key", async () => {
    const { testApp, authorize, owner } = await platformApp();
    const worker = await keyWith(testApp, owner, ["images:create", "usage:read"]);
    const response = await authorize({
      authorization: worker.headers.authorization,
      permission: "images:create",
      credits: 3,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      allowed: true,
      status: 200,
      organization_id: owner.orgId,
      key: {
        id: worker.id,
        api_id: worker.apiId,
        permissions: ["images:create", "usage:read"],
        all_future_permissions: false,
      },
      headers: { "x-renders-allowed": "50", "x-renders-consumed": "3", "x-renders-used": "3" },
      error: null,
    });
    expect(await creditsUsed(testApp, owner.orgId)).toBe(3);
  });

  test("allowed without credits or group: no headers, nothing consumed", async () => {
    const { testApp, authorize, owner } = await platformApp();
    const response = await authorize({
      authorization: owner.headers.authorization,
      permission: "images:read",
    });
    expect(response.json()).toMatchObject({ allowed: true, status: 200, headers: {}, error: null });
    expect(response.json().key.all_future_permissions).toBe(true);
    expect(await creditsUsed(testApp, owner.orgId)).toBe(0);
  });

  test("the issue's story: the 51st images:create on the default plan is plan_limit_exceeded", async () => {
    const { testApp, authorize, owner } = await platformApp({ clock: fakeClock() });
    const worker = await keyWith(testApp, owner, ["images:create"]);
    const ask = () =>
      authorize({ authorization: worker.headers.authorization, permission: "images:create", credits: 1 });
    for (let i = 1; i <= 50; i++) {
      const decision = (await ask()).json();
      expect(decision.allowed).toBe(true);
      expect(decision.headers["x-renders-used"]).toBe(String(i));
    }
    const response = await ask();
    expect(response.statusCode).toBe(200);
    const decision = response.json();
    expect(decision).toMatchObject({ allowed: false, status: 429, organization_id: owner.orgId });
    // No Retry-After and no RateLimit headers: waiting does not help.
    expect(decision.headers).toEqual({
      "x-renders-allowed": "50",
      "x-renders-consumed": "0",
      "x-renders-used": "50",
    });
    expect(decision.error).toEqual({
      statusCode: 429,
      error: "Plan limit exceeded",
      message: expect.any(String),
      code: "plan_limit_exceeded",
    });
    // The organization was created at the fake clock's time: the period ends a month later.
    const message: string = decision.error.message;
    expect(message).toContain("50 of 50 image credits");
    expect(message).toMatch(/resets? at 2026-12-22T10:00:00\.000Z/);
    expect(message).toMatch(/waiting .*does not restore credits/);
    expect(await creditsUsed(testApp, owner.orgId)).toBe(50);
    // Asking for more than is left is refused whole, not partly consumed.
    await testApp.services.plans.change(owner.orgId, { imageCredits: 52 });
    const three = (
      await authorize({
        authorization: worker.headers.authorization,
        permission: "images:create",
        credits: 3,
      })
    ).json();
    expect(three).toMatchObject({ allowed: false, status: 429 });
    expect(three.headers["x-renders-used"]).toBe("50");
    expect(await creditsUsed(testApp, owner.orgId)).toBe(50);
  });

  test("overages on: consumption past the allowance is allowed and counted", async () => {
    const { testApp, authorize, owner } = await platformApp();
    await testApp.services.plans.change(owner.orgId, { imageCredits: 2, overages: true });
    for (let i = 1; i <= 4; i++) {
      const decision = (
        await authorize({
          authorization: owner.headers.authorization,
          permission: "images:create",
          credits: 1,
        })
      ).json();
      expect(decision.allowed).toBe(true);
      expect(decision.headers).toEqual({
        "x-renders-allowed": "2",
        "x-renders-consumed": "1",
        "x-renders-used": String(i),
      });
    }
    expect(await creditsUsed(testApp, owner.orgId)).toBe(4);
  });
});

describe("POST /v1/authorize: the order of checks", () => {
  test("a key missing the permission on an exhausted group gets 403 and takes no slot", async () => {
    const { testApp, authorize, owner } = await platformApp();
    await testApp.services.store.setQuota(owner.orgId, "proxy:read", 2);
    const outsider = await keyWith(testApp, owner, ["images:read"]);
    const as = (authorization: string) =>
      authorize({ authorization, permission: "proxies:read", group: "proxy:read" });
    // Refused for the permission many times: the group is untouched.
    for (let i = 0; i < 5; i++) {
      const decision = (await as(outsider.headers.authorization)).json();
      expect(decision).toMatchObject({ status: 403, headers: {} });
      expect(decision.error.code).toBe("missing_permission");
    }
    expect((await as(owner.headers.authorization)).json().headers.RateLimit).toMatch(/r=1;/);
    expect((await as(owner.headers.authorization)).json().allowed).toBe(true);
    // Now exhausted; the outsider still gets its 403, not a 429.
    expect((await as(owner.headers.authorization)).json().status).toBe(429);
    expect((await as(outsider.headers.authorization)).json().status).toBe(403);
    // And a 401 comes before everything.
    expect((await as("Basic bm9ib2R5Om5vdGhpbmc=")).json().status).toBe(401);
  });

  test("a rate-limited request consumes no credits", async () => {
    const { testApp, authorize, owner } = await platformApp();
    await testApp.services.store.setQuota(owner.orgId, "proxy:write", 1);
    const ask = () =>
      authorize({
        authorization: owner.headers.authorization,
        permission: "images:create",
        group: "proxy:write",
        credits: 2,
      });
    const first = (await ask()).json();
    expect(first.allowed).toBe(true);
    expect(first.headers["x-renders-used"]).toBe("2");
    const limited = (await ask()).json();
    expect(limited).toMatchObject({ allowed: false, status: 429 });
    expect(limited.error.code).toBe("rate_limited");
    expect(limited.headers["x-renders-used"]).toBeUndefined();
    expect(await creditsUsed(testApp, owner.orgId)).toBe(2);
  });

  test("a plan-limit refusal still took its group slot", async () => {
    const { testApp, authorize, owner } = await platformApp();
    await testApp.services.store.setQuota(owner.orgId, "proxy:write", 3);
    await testApp.services.plans.change(owner.orgId, { imageCredits: 0 });
    const ask = () =>
      authorize({
        authorization: owner.headers.authorization,
        permission: "images:create",
        group: "proxy:write",
        credits: 1,
      });
    for (const remaining of [2, 1, 0]) {
      const decision = (await ask()).json();
      expect(decision).toMatchObject({ allowed: false, status: 429 });
      expect(decision.error.code).toBe("plan_limit_exceeded");
      expect(decision.headers.RateLimit).toMatch(new RegExp(`;r=${remaining};`));
      expect(decision.headers["Retry-After"]).toBeUndefined();
      expect(decision.headers["x-renders-consumed"]).toBe("0");
    }
    // The three refusals used the group's three slots.
    expect((await ask()).json().error.code).toBe("rate_limited");
    expect(await creditsUsed(testApp, owner.orgId)).toBe(0);
  });
});
