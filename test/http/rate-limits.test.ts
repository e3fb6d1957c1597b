import { describe, expect, test } from "vitest";
import { buildTestApp, fakeClock, type TestKey, ownerApp } from "../helpers/build-test-app.js";
import { keyWith, listAll, rateLimitOf, repeat } from "../helpers/http-keys.js";

/** Management rate limits (spec "Management request limits", docs/rate-limits.md), exact with a fake clock. */

const READ = { method: "GET", url: "/v1/api-keys" } as const;
const createRequest = (owner: TestKey) =>
  ({ method: "POST", url: "/v1/api-keys", headers: owner.headers, payload: { permissions: [] } }) as const;

describe("the 429", () => {
  test("the 21st write in a minute is 429 with the spec's body, Retry-After, and no effect", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    expect(await repeat(testApp, 20, createRequest(owner))).toEqual(Array(20).fill(200));
    const keysBefore = await listAll(testApp, owner);
    const response = await testApp.app.inject(createRequest(owner));
    expect(response.statusCode).toBe(429);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(["code", "error", "message", "statusCode"]);
    expect(body).toMatchObject({ error: "Too Many Requests", statusCode: 429, code: "rate_limited" });
    expect(body.message).toContain("api-key:write");
    expect(body.message).toMatch(/\b20 requests per minute\b/);
    expect(body.message).toContain("per organization");
    expect(body.message).toMatch(/contact support/i);
    expect(response.headers["retry-after"]).toBe("60");
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers["ratelimit-policy"]).toBe('"api-key:write";q=20;w=60');
    expect(rateLimitOf(response)).toEqual({ group: "api-key:write", remaining: 0 });
    expect(await listAll(testApp, owner)).toEqual(keysBefore);
  });

  test("the 101st read in a minute is 429 naming api-key:read and 100", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const statuses = await repeat(testApp, 101, { ...READ, headers: owner.headers });
    expect(statuses.filter((status) => status === 200)).toHaveLength(100);
    expect(statuses[100]).toBe(429);
    const response = await testApp.app.inject({
      method: "GET",
      url: `/v1/api-keys/${owner.id}`,
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(429);
    expect(response.json().message).toContain("api-key:read");
    expect(response.json().message).toMatch(/\b100 requests per minute\b/);
  });
});

describe("the sliding window", () => {
  test("Retry-After is the seconds, rounded up, until the oldest admitted request leaves", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const clock = testApp.clock;
    if (!clock) throw new Error("fake clock expected");
    await repeat(testApp, 1, createRequest(owner));
    clock.advance(1_500);
    await repeat(testApp, 19, createRequest(owner));
    const first = await testApp.app.inject(createRequest(owner));
    expect(first.statusCode).toBe(429);
    expect(first.headers["retry-after"]).toBe("59");
    clock.advance(58_499);
    const almost = await testApp.app.inject(createRequest(owner));
    expect(almost.statusCode).toBe(429);
    expect(almost.headers["retry-after"]).toBe("1");
    clock.advance(1);
    const admitted = await testApp.app.inject(createRequest(owner));
    expect(admitted.statusCode).toBe(200);
    const next = await testApp.app.inject(createRequest(owner));
    expect(next.statusCode).toBe(429);
    expect(next.headers["retry-after"]).toBe("2");
  });

  test("rejected requests take no slot: hammering does not push the retry time back", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    await repeat(testApp, 20, createRequest(owner));
    for (let second = 0; second < 60; second += 10) {
      const response = await testApp.app.inject(createRequest(owner));
      expect(response.headers["retry-after"]).toBe(String(60 - second));
      testApp.clock?.advance(10_000);
    }
    expect(await repeat(testApp, 21, createRequest(owner))).toEqual([...Array(20).fill(200), 429]);
  });

  test("LATCHKEY_RATE_WINDOW_SECONDS shortens the window", async () => {
    const { testApp, owner } = await ownerApp({
      clock: fakeClock(),
      env: { LATCHKEY_RATE_WINDOW_SECONDS: "5" },
    });
    await repeat(testApp, 20, createRequest(owner));
    const refused = await testApp.app.inject(createRequest(owner));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["retry-after"]).toBe("5");
    expect(refused.headers["ratelimit-policy"]).toBe('"api-key:write";q=20;w=5');
    testApp.clock?.advance(5_000);
    expect((await testApp.app.inject(createRequest(owner))).statusCode).toBe(200);
  });
});

describe("who shares an allowance", () => {
  test("read and write groups are independent", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    await repeat(testApp, 20, createRequest(owner));
    const read = await testApp.app.inject({ ...READ, headers: owner.headers });
    expect(read.statusCode).toBe(200);
    expect(rateLimitOf(read)?.remaining).toBe(99);
    await repeat(testApp, 99, { ...READ, headers: owner.headers });
    expect((await testApp.app.inject({ ...READ, headers: owner.headers })).statusCode).toBe(429);
    testApp.clock?.advance(60_000);
    expect((await testApp.app.inject(createRequest(owner))).statusCode).toBe(200);
  });

  test("all keys of an organization share its allowance", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const other = await keyWith(testApp, owner, ["api_keys:read"]);
    await repeat(testApp, 60, { ...READ, headers: owner.headers });
    await repeat(testApp, 40, { ...READ, headers: other.headers });
    expect((await testApp.app.inject({ ...READ, headers: other.headers })).statusCode).toBe(429);
    expect((await testApp.app.inject({ ...READ, headers: owner.headers })).statusCode).toBe(429);
  });

  test("organizations' limits are independent", async () => {
    const testApp = await buildTestApp({ clock: fakeClock() });
    const busy = await testApp.createOrganization("busy");
    const quiet = await testApp.createOrganization("quiet");
    await repeat(testApp, 20, createRequest(busy));
    expect((await testApp.app.inject(createRequest(busy))).statusCode).toBe(429);
    const response = await testApp.app.inject(createRequest(quiet));
    expect(response.statusCode).toBe(200);
    expect(rateLimitOf(response)?.remaining).toBe(19);
  });
});

describe("per-organization overrides", () => {
  test("a raised write allowance admits more, and the policy and message show it", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    await testApp.services.store.setQuota(owner.orgId, "api-key:write", 25);
    const statuses = await repeat(testApp, 25, createRequest(owner));
    expect(statuses).toEqual(Array(25).fill(200));
    const refused = await testApp.app.inject(createRequest(owner));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["ratelimit-policy"]).toBe('"api-key:write";q=25;w=60');
    expect(refused.json().message).toMatch(/\b25 requests per minute\b/);
  });

  test("an override made while requests flow takes effect within 2 seconds", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const before = await testApp.app.inject({ ...READ, headers: owner.headers });
    expect(before.headers["ratelimit-policy"]).toBe('"api-key:read";q=100;w=60');
    await testApp.services.store.setQuota(owner.orgId, "api-key:read", 3);
    testApp.clock?.advance(2_000);
    const after = await testApp.app.inject({ ...READ, headers: owner.headers });
    expect(after.headers["ratelimit-policy"]).toBe('"api-key:read";q=3;w=60');
    expect(rateLimitOf(after)?.remaining).toBe(1);
    expect(await repeat(testApp, 2, { ...READ, headers: owner.headers })).toEqual([200, 429]);
  });

  test("an override of one organization leaves the others on the defaults", async () => {
    const testApp = await buildTestApp({ clock: fakeClock() });
    const raised = await testApp.createOrganization("raised");
    const plain = await testApp.createOrganization("plain");
    await testApp.services.store.setQuota(raised.orgId, "api-key:write", 50);
    const response = await testApp.app.inject(createRequest(plain));
    expect(response.headers["ratelimit-policy"]).toBe('"api-key:write";q=20;w=60');
  });
});
