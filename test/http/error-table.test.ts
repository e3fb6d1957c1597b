import { describe, expect, test } from "vitest";
import { ownerApp, buildTestApp } from "../helpers/build-test-app.js";
import { bodyShapeCases, expectErrorBody } from "../helpers/body-error-cases.js";
import { rateLimitOf, seedDisable, seedKeys, UNKNOWN_KEY_ID } from "../helpers/http-keys.js";

/** docs/troubleshooting.md: every row of the error table, in the documented body shape. */

describe("the body's shape (400, 413, 415)", () => {
  bodyShapeCases({
    createPath: "/v1/api-keys",
    updatePath: (owner) => `/v1/api-keys/${owner.id}`,
    oversizedBody: { permissions: [], description: "x".repeat(200_000) },
  });
});

describe("400 invalid_request", () => {
  test("a bad body lists what is wrong with a JSON pointer to it", async () => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: owner.headers,
      payload: { name: 42, permissions: [] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers["cache-control"]).toBe("no-store");
    const body = response.json();
    expectErrorBody(body, 400, "Bad Request", "invalid_request");
    expect(body.validation_errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "/name", message: expect.any(String) })]),
    );
  });

  test("a bad query is 400 naming the parameter", async () => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({
      method: "GET",
      url: "/v1/api-keys?count=ten",
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(400);
    expectErrorBody(response.json(), 400, "Bad Request", "invalid_request");
    expect(response.json().validation_errors).toEqual([expect.objectContaining({ path: "/query/count" })]);
  });

  test("an unknown query parameter is 400, not ignored", async () => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({ method: "GET", url: "/v1/api-keys?limit=5", headers: owner.headers });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toContain("limit");
  });

  test.each([
    ["GET", undefined],
    ["POST", { permissions: [] }],
    ["DELETE", undefined],
  ] as const)("%s with an id that is not a key id (an api_id, say) is 400", async (method, payload) => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({
      method,
      url: `/v1/api-keys/${owner.apiId}`,
      headers: owner.headers,
      ...(payload ? { payload } : {}),
    });
    expect(response.statusCode).toBe(400);
    expectErrorBody(response.json(), 400, "Bad Request", "invalid_request");
    expect(response.json().validation_errors).toEqual([expect.objectContaining({ path: "/params/id" })]);
  });

  test("a page_start that this service did not issue is 400", async () => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({
      method: "GET",
      url: "/v1/api-keys?page_start=not-a-cursor",
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe("invalid_request");
    expect(response.json().message).toContain("page_start");
  });
});

describe("404 not_found", () => {
  test.each([
    ["GET", undefined],
    ["POST", { permissions: [] }],
    ["DELETE", undefined],
  ] as const)("%s of an id that does not exist is 404 naming the id", async (method, payload) => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({
      method,
      url: `/v1/api-keys/${UNKNOWN_KEY_ID}`,
      headers: owner.headers,
      ...(payload ? { payload } : {}),
    });
    expect(response.statusCode).toBe(404);
    expect(response.headers["cache-control"]).toBe("no-store");
    expectErrorBody(response.json(), 404, "Not Found", "not_found");
    expect(response.json().message).toContain(UNKNOWN_KEY_ID);
  });

  test("an unknown path is 404 even without credentials", async () => {
    const { app } = await buildTestApp();
    const response = await app.inject({ method: "GET", url: "/v1/api-keyz" });
    expect(response.statusCode).toBe(404);
    expectErrorBody(response.json(), 404, "Not Found", "not_found");
  });
});

describe("405 for a wrong method on a known path", () => {
  test.each([
    ["PUT", "/v1/api-keys", "GET, HEAD, POST"],
    ["DELETE", "/v1/api-keys", "GET, HEAD, POST"],
    ["PATCH", `/v1/api-keys/${UNKNOWN_KEY_ID}`, "GET, HEAD, POST, DELETE"],
    ["PUT", `/v1/api-keys/${UNKNOWN_KEY_ID}`, "GET, HEAD, POST, DELETE"],
  ] as const)("%s %s is 405 with Allow: %s, before authentication", async (method, url, allow) => {
    const { app } = await buildTestApp();
    const response = await app.inject({ method, url });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(response.headers["cache-control"]).toBe("no-store");
    expectErrorBody(response.json(), 405, "Method Not Allowed", "method_not_allowed");
  });
});

describe("409 key_quota_exceeded", () => {
  test("the 101st key of an organization is refused, and disabled keys count", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    // The owner key is the first; 98 more make 99, of which half are disabled.
    const seeded = await seedKeys(testApp, owner, 98);
    for (const key of seeded.slice(0, 49)) await seedDisable(testApp, owner, key);
    const hundredth = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: owner.headers,
      payload: { permissions: [] },
    });
    expect(hundredth.statusCode).toBe(200);
    const refused = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: owner.headers,
      payload: { permissions: [] },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.headers["cache-control"]).toBe("no-store");
    expect(rateLimitOf(refused)?.group).toBe("api-key:write");
    expectErrorBody(refused.json(), 409, "Conflict", "key_quota_exceeded");
    expect(refused.json().message).toContain("100");
    // Disabling another key does not free a slot.
    await testApp.app.inject({
      method: "DELETE",
      url: `/v1/api-keys/${hundredth.json().id}`,
      headers: owner.headers,
    });
    const stillRefused = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: owner.headers,
      payload: { permissions: [] },
    });
    expect(stillRefused.statusCode).toBe(409);
  });

  test("an operator's key quota override is the limit, and the message names it", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    await testApp.services.store.setMaxKeys(owner.orgId, 3);
    await seedKeys(testApp, owner, 2);
    const refused = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: owner.headers,
      payload: { permissions: [] },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain("3");
  });

  test("the quota is per organization", async () => {
    const testApp = await buildTestApp();
    const full = await testApp.createOrganization("full");
    await seedKeys(testApp, full, 99);
    const other = await testApp.createOrganization("other");
    const response = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: other.headers,
      payload: { permissions: [] },
    });
    expect(response.statusCode).toBe(200);
  });
});

describe("content types", () => {
  test("a JSON body with a charset parameter is accepted", async () => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: { ...owner.headers, "content-type": "application/json; charset=utf-8" },
      payload: JSON.stringify({ permissions: [] }),
    });
    expect(response.statusCode).toBe(200);
  });
});

describe("500 internal", () => {
  test("an unexpected failure is 500 with a generic message that echoes no internals", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    testApp.services.store.findKey = async () => {
      throw new Error("SQLITE_CORRUPT: database disk image is malformed at /var/lib/latchkey/data.db");
    };
    const response = await testApp.app.inject({
      method: "GET",
      url: `/v1/api-keys/${owner.id}`,
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(500);
    expect(response.headers["cache-control"]).toBe("no-store");
    expectErrorBody(response.json(), 500, "Internal Server Error", "internal");
    expect(response.body).not.toMatch(/SQLITE|malformed|\/var\/lib|at .*\.ts/);
  });
});

describe("400 messages say what is expected, in words", () => {
  test.each(["count=ten", "count=0", "count=101"])(
    "?%s: count must be an integer from 1 to 100",
    async (query) => {
      const { app, owner } = await ownerApp();
      const response = await app.inject({
        method: "GET",
        url: `/v1/api-keys?${query}`,
        headers: owner.headers,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe("Invalid request: count must be an integer from 1 to 100.");
      expect(response.json().validation_errors).toEqual([
        { path: "/query/count", message: "must be an integer from 1 to 100" },
      ]);
    },
  );

  test("an api_id where a key id belongs is told which id the path expects", async () => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({
      method: "GET",
      url: `/v1/api-keys/${owner.apiId}`,
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(
      "Invalid request: the id in the path must be a key id (key_...), not an api_id (lkid_...).",
    );
    expect(response.json().message).not.toContain(owner.apiId);
  });

  test("a proxy id where a key id belongs, or an id of no kind, is told which id the path expects", async () => {
    const { app, owner } = await ownerApp();
    const proxy = await app.inject({
      method: "GET",
      url: "/v1/api-keys/prx_0123456789012345678901",
      headers: owner.headers,
    });
    expect(proxy.json().validation_errors).toEqual([
      { path: "/params/id", message: "must be a key id (key_...), not a proxy id (prx_...)" },
    ]);
    const other = await app.inject({ method: "GET", url: "/v1/api-keys/hello", headers: owner.headers });
    expect(other.json().validation_errors).toEqual([
      { path: "/params/id", message: "must be a key id (key_...)" },
    ]);
  });

  test("a trailing slash is told the id is empty", async () => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({ method: "GET", url: "/v1/api-keys/", headers: owner.headers });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(
      "Invalid request: the id in the path is empty: expected a key id (key_...) (a trailing slash leaves it empty).",
    );
  });

  test("a JSON array as the body is told the body must be a JSON object, not that it needs one", async () => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: { ...owner.headers, "content-type": "application/json" },
      payload: "[]",
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().validation_errors).toEqual([
      { path: "/", message: "must be a JSON object, not an array" },
    ]);
  });
});
