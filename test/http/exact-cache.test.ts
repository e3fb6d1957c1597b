import { randomBytes } from "node:crypto";
import { expect, test } from "vitest";
import { basicAuth, ownerApp } from "../helpers/build-test-app.js";
import { keyWith } from "../helpers/http-keys.js";

// The records every request reads are cached (src/cache/exact-cache.ts); these are the promises a
// user relies on within one process. Other processes' writes: test/process/exact-cache.test.ts.

test("unknown api_ids and wrong secrets never grow a cache", async () => {
  const { testApp, app, owner } = await ownerApp();
  await app.inject({ method: "GET", url: `/v1/api-keys/${owner.id}`, headers: owner.headers });
  const before = testApp.services.cacheSizes();
  expect(before.keysByApiId).toBe(1);
  for (let i = 0; i < 300; i++) {
    const unknown = basicAuth(`lkid_${randomBytes(12).toString("hex")}`, "lksk_guess");
    const wrongSecret = basicAuth(owner.apiId, `lksk_${randomBytes(12).toString("hex")}`);
    for (const headers of [unknown, wrongSecret]) {
      const response = await app.inject({ method: "GET", url: `/v1/api-keys/${owner.id}`, headers });
      expect(response.statusCode).toBe(401);
    }
  }
  // Ids of no key (within the read allowance of 100 per minute).
  for (let i = 0; i < 90; i++) {
    const missing = await app.inject({
      method: "GET",
      url: `/v1/api-keys/key_${randomBytes(11).toString("hex")}`,
      headers: owner.headers,
    });
    expect(missing.statusCode).toBe(404);
  }
  expect(testApp.services.cacheSizes()).toEqual(before);
});

test("this process's own changes are served on the next request: disable, update, re-enable", async () => {
  const { testApp, app, owner } = await ownerApp();
  const key = await keyWith(testApp, owner, ["api_keys:read"]);
  const read = () => app.inject({ method: "GET", url: `/v1/api-keys/${key.id}`, headers: key.headers });
  expect((await read()).statusCode).toBe(200);

  const updated = await app.inject({
    method: "POST",
    url: `/v1/api-keys/${key.id}`,
    headers: owner.headers,
    payload: { name: "renamed", permissions: ["api_keys:read", "images:read"] },
  });
  expect(updated.statusCode).toBe(200);
  const afterUpdate = await read();
  expect(afterUpdate.json()).toMatchObject({
    name: "renamed",
    permissions: ["images:read", "api_keys:read"],
  });

  await app.inject({ method: "DELETE", url: `/v1/api-keys/${key.id}`, headers: owner.headers });
  expect((await read()).statusCode).toBe(401);
  const seenByOwner = await app.inject({
    method: "GET",
    url: `/v1/api-keys/${key.id}`,
    headers: owner.headers,
  });
  expect(seenByOwner.json().enabled).toBe(false);

  // Losing the permission takes effect at once too.
  const reader = await keyWith(testApp, owner, ["api_keys:read"]);
  const own = () => app.inject({ method: "GET", url: `/v1/api-keys/${reader.id}`, headers: reader.headers });
  expect((await own()).statusCode).toBe(200);
  await app.inject({
    method: "POST",
    url: `/v1/api-keys/${reader.id}`,
    headers: owner.headers,
    payload: { permissions: [] },
  });
  expect((await own()).statusCode).toBe(403);
});

test("an operator's override applies to the next request", async () => {
  const { testApp, app, owner } = await ownerApp();
  const policy = async () =>
    (await app.inject({ method: "GET", url: `/v1/api-keys/${owner.id}`, headers: owner.headers })).headers[
      "ratelimit-policy"
    ];
  expect(await policy()).toBe('"api-key:read";q=100;w=60');
  await testApp.services.store.setQuota(owner.orgId, "api-key:read", 5000);
  expect(await policy()).toBe('"api-key:read";q=5000;w=60');
  await testApp.services.store.setQuota(owner.orgId, "api-key:read", null);
  expect(await policy()).toBe('"api-key:read";q=100;w=60');
});

test("a plan change made through the stores applies to the next request", async () => {
  const { testApp, app, owner } = await ownerApp();
  const token = (await testApp.services.serviceTokens.create("images")).token;
  const authorize = async () =>
    (
      await app.inject({
        method: "POST",
        url: "/v1/authorize",
        headers: { "x-latchkey-service-token": token },
        payload: { authorization: owner.headers.authorization, permission: "images:create", credits: 1 },
      })
    ).json();
  expect(await authorize()).toMatchObject({ allowed: true, status: 200 });
  await testApp.services.plans.change(owner.orgId, { imageCredits: 1 });
  expect(await authorize()).toMatchObject({ allowed: false, status: 429 });
  await testApp.services.plans.change(owner.orgId, { imageCredits: 100 });
  expect(await authorize()).toMatchObject({ allowed: true, status: 200 });
});

test("a key's last use keeps every cached record and is served at once", async () => {
  const { testApp, app, owner } = await ownerApp();
  const key = await keyWith(testApp, owner, ["api_keys:read"]);
  const ownersRead = () =>
    app.inject({ method: "GET", url: `/v1/api-keys/${key.id}`, headers: owner.headers });
  expect((await ownersRead()).json().last_used_at).toBeNull();
  const freshness = testApp.services.freshness!;
  const generation = freshness.generation();

  // The key's first authentication writes its last use (once a minute at most)...
  const own = await app.inject({ method: "GET", url: `/v1/api-keys/${key.id}`, headers: key.headers });
  expect(own.statusCode).toBe(200);
  await testApp.services.lastUse.flush();
  // ...which is not a change of what the caches hold: nothing has to be read again,
  await new Promise<void>((resume) => freshness.beginRequest(resume));
  expect(freshness.generation()).toBe(generation);
  // and the cached copies carry the new time.
  const lastUsed = (await ownersRead()).json().last_used_at;
  expect(lastUsed).not.toBeNull();
  expect(Date.parse(lastUsed)).toBeGreaterThan(Date.now() - 60_000);
});

test("a cached key's read is served as the route's JSON, the same each time, without its secret", async () => {
  const { testApp, app, owner } = await ownerApp();
  const key = await keyWith(testApp, owner, ["api_keys:read"]);
  const read = () => app.inject({ method: "GET", url: `/v1/api-keys/${key.id}`, headers: owner.headers });
  const [first, second] = [await read(), await read()];
  for (const response of [first, second]) {
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(Object.keys(response.json()).sort()).toEqual(
      [
        "all_future_permissions",
        "api_id",
        "created_at",
        "description",
        "enabled",
        "id",
        "last_used_at",
        "leaked_at",
        "name",
        "permissions",
        "updated_at",
        "expires_at",
        "expired",
      ].sort(),
    );
  }
  expect(second.body).toBe(first.body);
});
