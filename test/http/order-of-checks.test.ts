import { describe, expect, test } from "vitest";
import { buildTestApp } from "../helpers/build-test-app.js";
import { keyWith, repeat, seedKey, seedKeys, UNKNOWN_KEY_ID } from "../helpers/http-keys.js";

/**
 * docs/authority.md: route -> 401 -> 403 missing_permission -> 429 -> 400 -> 404 -> 403 authority ->
 * 409 -> effect. Each test breaks two neighbouring checks at once and expects the earlier one to answer.
 */

const BAD_BODY = { permissions: "api_keys:read", enabled: true };

describe("route before authentication", () => {
  test("a wrong method is 405 even without credentials", async () => {
    const { app } = await buildTestApp();
    const response = await app.inject({ method: "PATCH", url: "/v1/api-keys", payload: BAD_BODY });
    expect(response.statusCode).toBe(405);
  });
});

describe("authentication before everything that follows it", () => {
  test("a bad body from an unauthenticated client is 401", async () => {
    const { app } = await buildTestApp();
    const response = await app.inject({ method: "POST", url: "/v1/api-keys", payload: BAD_BODY });
    expect(response.statusCode).toBe(401);
  });

  test.each([
    ["not JSON", "text/plain", "hello"],
    ["too large", "application/json", JSON.stringify({ permissions: [], description: "x".repeat(100_000) })],
    ["invalid JSON", "application/json", "{"],
  ])("a body that is %s from an unauthenticated client is 401", async (_label, contentType, payload) => {
    const { app } = await buildTestApp();
    const response = await app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: { "content-type": contentType },
      payload,
    });
    expect(response.statusCode).toBe(401);
  });

  test("an unknown id from an unauthenticated client is 401, not 404", async () => {
    const { app } = await buildTestApp();
    const response = await app.inject({ method: "GET", url: `/v1/api-keys/${UNKNOWN_KEY_ID}` });
    expect(response.statusCode).toBe(401);
  });

  test("a disabled key lacking the permission is 401, not 403", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const key = await keyWith(testApp, owner, ["usage:read"]);
    await testApp.app.inject({ method: "DELETE", url: `/v1/api-keys/${key.id}`, headers: owner.headers });
    const response = await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: key.headers });
    expect(response.statusCode).toBe(401);
  });
});

describe("missing permission before rate limit and input", () => {
  test("a missing permission is reported before a bad body", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const reader = await keyWith(testApp, owner, ["api_keys:read"]);
    const response = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: reader.headers,
      payload: BAD_BODY,
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe("missing_permission");
  });

  test("a missing permission is reported even when the group is exhausted", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const reader = await keyWith(testApp, owner, ["api_keys:read"]);
    await repeat(testApp, 20, { method: "DELETE", url: `/v1/api-keys/${owner.id}x`, headers: owner.headers });
    const response = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: reader.headers,
      payload: { permissions: [] },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe("missing_permission");
  });
});

describe("rate limit before input validation", () => {
  test("a bad body over the rate limit is 429", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const statuses = await repeat(testApp, 21, {
      method: "POST",
      url: "/v1/api-keys",
      headers: owner.headers,
      payload: BAD_BODY,
    });
    // Rejected input still spends a slot: it was counted when admitted.
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(400));
    expect(statuses[20]).toBe(429);
  });

  test("a bad id or a bad query over the rate limit is 429", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    await repeat(testApp, 100, { method: "GET", url: "/v1/api-keys", headers: owner.headers });
    for (const url of ["/v1/api-keys/nonsense", "/v1/api-keys?count=0", `/v1/api-keys/${UNKNOWN_KEY_ID}`]) {
      const response = await testApp.app.inject({ method: "GET", url, headers: owner.headers });
      expect(response.statusCode).toBe(429);
    }
  });
});

describe("input validation before the target lookup", () => {
  test("a bad body for an unknown id is 400", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const response = await testApp.app.inject({
      method: "POST",
      url: `/v1/api-keys/${UNKNOWN_KEY_ID}`,
      headers: owner.headers,
      payload: { permissions: ["no_such:permission"] },
    });
    expect(response.statusCode).toBe(400);
  });
});

describe("target lookup before authority", () => {
  test("an update asking for permissions the caller lacks, of an unknown id, is 404", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const manager = await keyWith(testApp, owner, ["api_keys:create_update"]);
    const response = await testApp.app.inject({
      method: "POST",
      url: `/v1/api-keys/${UNKNOWN_KEY_ID}`,
      headers: manager.headers,
      payload: { permissions: [], all_future_permissions: true },
    });
    expect(response.statusCode).toBe(404);
  });
});

describe("authority before the key quota", () => {
  test("at the quota, a create the caller has no authority for is 403, a permitted one 409", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const manager = await seedKey(testApp, owner, { permissions: ["api_keys:create_update"] });
    await seedKeys(testApp, owner, 98);
    const overreach = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: manager.headers,
      payload: { permissions: ["images:store"] },
    });
    expect(overreach.statusCode).toBe(403);
    expect(overreach.json().code).toBe("insufficient_authority");
    const permitted = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: manager.headers,
      payload: { permissions: ["api_keys:create_update"] },
    });
    expect(permitted.statusCode).toBe(409);
  });
});
