import { expect, test } from "vitest";
import { keyWith, seedDisable } from "../helpers/http-keys.js";
import { platformApp } from "../helpers/platform.js";

test("GET /v1/usage needs usage:read: 401 without credentials, 403 naming the permission without it", async () => {
  const { testApp, owner } = await platformApp();
  const anonymous = await testApp.app.inject({ method: "GET", url: "/v1/usage" });
  expect(anonymous.statusCode).toBe(401);
  expect(anonymous.headers["www-authenticate"]).toBe('Basic realm="latchkey", charset="UTF-8"');
  expect(anonymous.json().code).toBe("unauthorized");

  const creator = await keyWith(testApp, owner, ["images:create", "api_keys:read"]);
  const forbidden = await testApp.app.inject({ method: "GET", url: "/v1/usage", headers: creator.headers });
  expect(forbidden.statusCode).toBe(403);
  expect(forbidden.json()).toMatchObject({ code: "missing_permission" });
  expect(forbidden.json().message).toContain("usage:read");

  const reader = await keyWith(testApp, owner, ["usage:read"]);
  const allowed = await testApp.app.inject({ method: "GET", url: "/v1/usage", headers: reader.headers });
  expect(allowed.statusCode).toBe(200);
  await seedDisable(testApp, owner, reader);
  const disabled = await testApp.app.inject({ method: "GET", url: "/v1/usage", headers: reader.headers });
  expect(disabled.statusCode).toBe(401);
});

test("GET /v1/usage is not rate-limited and is never cached", async () => {
  const { testApp, owner } = await platformApp();
  const reader = await keyWith(testApp, owner, ["usage:read"]);
  // More than any group's allowance (100 reads a minute), all answered.
  const responses = await Promise.all(
    Array.from({ length: 120 }, () =>
      testApp.app.inject({ method: "GET", url: "/v1/usage", headers: reader.headers }),
    ),
  );
  for (const response of responses) {
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers.ratelimit).toBeUndefined();
    expect(response.headers["ratelimit-policy"]).toBeUndefined();
  }
  // Reading usage took no slot of the key-read group either.
  const list = await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: owner.headers });
  expect(list.headers.ratelimit).toMatch(/^"api-key:read";r=99/);
});

test("GET /v1/usage counts only the caller's organization", async () => {
  const { testApp, owner, authorize } = await platformApp();
  const other = await testApp.createOrganization("other");
  for (let i = 0; i < 3; i++) {
    await authorize({ authorization: other.headers.authorization, permission: "images:create", credits: 2 });
  }
  await authorize({ authorization: owner.headers.authorization, permission: "images:create", credits: 1 });
  const mine = await testApp.app.inject({ method: "GET", url: "/v1/usage", headers: owner.headers });
  const theirs = await testApp.app.inject({ method: "GET", url: "/v1/usage", headers: other.headers });
  expect(mine.json().per_billing_period.at(-1).total_images).toBe(1);
  expect(Object.values(mine.json().data.hour)).toEqual([1]);
  expect(theirs.json().per_billing_period.at(-1).total_images).toBe(6);
});

test("other methods on /v1/usage: 405", async () => {
  const { testApp, owner } = await platformApp();
  const response = await testApp.app.inject({ method: "POST", url: "/v1/usage", headers: owner.headers });
  expect(response.statusCode).toBe(405);
});
