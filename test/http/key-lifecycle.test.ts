import { expect, test } from "vitest";
import { fakeClock, type TestApp, type TestKey, ownerApp } from "../helpers/build-test-app.js";
import { postKey } from "../helpers/http-keys.js";

/** The states and transitions of a key (spec "States and transitions"), through every endpoint. */

async function createKey(testApp: TestApp, owner: TestKey, payload: Record<string, unknown>) {
  const created = await postKey(testApp, owner, payload);
  expect(created.response.statusCode).toBe(200);
  return created;
}

const get = (testApp: TestApp, headers: Record<string, string>, id: string) =>
  testApp.app.inject({ method: "GET", url: `/v1/api-keys/${id}`, headers });

test("a created key authenticates with its api_id and api_key; retrieve never shows the secret", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const { body, headers } = await createKey(testApp, owner, {
    name: "reader",
    permissions: ["api_keys:read"],
  });
  const self = await get(testApp, headers, body.id);
  expect(self.statusCode).toBe(200);
  // last_used_at is left out: the read's own authentication records a use, written in the background.
  const { api_key: _secret, last_used_at: _unused, ...record } = body;
  const { last_used_at: _used, ...shown } = self.json();
  expect(shown).toEqual(record);
  expect(self.body).not.toContain(body.api_key);
});

test("an update replaces the whole configuration: omitted optional fields return to defaults", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const { body: created } = await createKey(testApp, owner, {
    name: "exporter",
    description: "nightly export",
    permissions: ["images:read", "usage:read"],
  });
  testApp.clock?.advance(5_000);
  const response = await testApp.app.inject({
    method: "POST",
    url: `/v1/api-keys/${created.id}`,
    headers: owner.headers,
    payload: { permissions: ["usage:read"] },
  });
  expect(response.statusCode).toBe(200);
  expect(response.json()).toEqual({
    id: created.id,
    api_id: created.api_id,
    name: "Key created 2026-11-22 10:00:00",
    description: null,
    enabled: true,
    permissions: ["usage:read"],
    all_future_permissions: false,
    created_at: created.created_at,
    updated_at: "2026-11-22T10:00:05.000Z",
    last_used_at: null,
    leaked_at: null,
    allowed_cidrs: null,
    metadata: null,
    expires_at: null,
    expired: false,
  });
  const read = await get(testApp, owner.headers, created.id);
  expect(read.json()).toEqual(response.json());
});

test("an update of an all-future key without all_future_permissions takes that access away", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const { body: created, headers } = await createKey(testApp, owner, {
    permissions: [],
    all_future_permissions: true,
  });
  const response = await testApp.app.inject({
    method: "POST",
    url: `/v1/api-keys/${created.id}`,
    headers: owner.headers,
    payload: { permissions: ["usage:read"] },
  });
  expect(response.json()).toMatchObject({ all_future_permissions: false, permissions: ["usage:read"] });
  const attempt = await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers });
  expect(attempt.statusCode).toBe(403);
});

test("disable then re-enable: the same api_id and api_key work again, and no secret is returned", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const { body: created, headers } = await createKey(testApp, owner, {
    name: "worker",
    permissions: ["api_keys:read"],
  });
  const disabled = await testApp.app.inject({
    method: "POST",
    url: `/v1/api-keys/${created.id}`,
    headers: owner.headers,
    payload: { name: "worker", permissions: ["api_keys:read"], disabled: true },
  });
  expect(disabled.statusCode).toBe(200);
  expect(disabled.json().enabled).toBe(false);
  expect((await get(testApp, headers, created.id)).statusCode).toBe(401);

  const enabled = await testApp.app.inject({
    method: "POST",
    url: `/v1/api-keys/${created.id}`,
    headers: owner.headers,
    payload: { name: "worker", permissions: ["api_keys:read"], disabled: false },
  });
  expect(enabled.statusCode).toBe(200);
  expect(enabled.json()).not.toHaveProperty("api_key");
  expect(enabled.body).not.toContain(created.api_key);
  expect(enabled.json()).toMatchObject({ enabled: true, api_id: created.api_id, id: created.id });
  expect((await get(testApp, headers, created.id)).statusCode).toBe(200);
});

test("DELETE answers 204 with no body, twice, and the key can no longer authenticate", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const { body: created, headers } = await createKey(testApp, owner, { permissions: ["api_keys:read"] });
  for (let attempt = 0; attempt < 2; attempt++) {
    const response = await testApp.app.inject({
      method: "DELETE",
      url: `/v1/api-keys/${created.id}`,
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect(response.headers["content-type"]).toBeUndefined();
    expect(response.headers["cache-control"]).toBe("no-store");
  }
  const attempt = await get(testApp, headers, created.id);
  expect(attempt.statusCode).toBe(401);
});

test("a disabled key stays retrievable and listable with include_disabled", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const { body: created } = await createKey(testApp, owner, { name: "old", permissions: ["usage:read"] });
  testApp.clock?.advance(1_000);
  await testApp.app.inject({ method: "DELETE", url: `/v1/api-keys/${created.id}`, headers: owner.headers });
  const read = await get(testApp, owner.headers, created.id);
  expect(read.statusCode).toBe(200);
  expect(read.json()).toMatchObject({
    id: created.id,
    name: "old",
    enabled: false,
    permissions: ["usage:read"],
    updated_at: "2026-11-22T10:00:01.000Z",
  });
  const listed = await testApp.app.inject({
    method: "GET",
    url: "/v1/api-keys?include_disabled=true",
    headers: owner.headers,
  });
  expect(listed.json().data.map((key: { id: string }) => key.id)).toContain(created.id);
});

test("a key with api_keys:delete can disable itself, and is refused from then on", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const { body: created, headers } = await createKey(testApp, owner, {
    permissions: ["api_keys:read", "api_keys:delete"],
  });
  const response = await testApp.app.inject({ method: "DELETE", url: `/v1/api-keys/${created.id}`, headers });
  expect(response.statusCode).toBe(204);
  expect((await get(testApp, headers, created.id)).statusCode).toBe(401);
});

test("the path takes the resource id, never the api_id", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const byApiId = await get(testApp, owner.headers, owner.apiId);
  expect(byApiId.statusCode).toBe(400);
  const byId = await get(testApp, owner.headers, owner.id);
  expect(byId.json().api_id).toBe(owner.apiId);
});

test("DELETE from a client that always sends Content-Type: application/json is still 204", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const { body: created } = await createKey(testApp, owner, { permissions: [] });
  const response = await testApp.app.inject({
    method: "DELETE",
    url: `/v1/api-keys/${created.id}`,
    headers: { ...owner.headers, "content-type": "application/json" },
  });
  expect(response.statusCode).toBe(204);
});
