import { describe, expect, test } from "vitest";
import type { Permission } from "../../src/domain/permissions.js";
import { buildTestApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { keyWith, seedKey, withoutLastUse } from "../helpers/http-keys.js";

/** docs/authority.md: nobody can grant, change or disable what it does not hold itself. */

const MANAGER: Permission[] = ["api_keys:read", "api_keys:create_update", "api_keys:delete", "images:create"];

async function withManager(): Promise<{ testApp: TestApp; owner: TestKey; manager: TestKey }> {
  const testApp = await buildTestApp();
  const owner = await testApp.createOrganization();
  return { testApp, owner, manager: await keyWith(testApp, owner, MANAGER) };
}

const send = (testApp: TestApp, caller: TestKey, method: "POST" | "DELETE", url: string, payload?: object) =>
  testApp.app.inject({ method, url, headers: caller.headers, ...(payload ? { payload } : {}) });

/** What the owner sees of a key (its use aside), to prove a refused request changed nothing. */
async function recordOf(testApp: TestApp, owner: TestKey, id: string) {
  return withoutLastUse(
    (await testApp.app.inject({ method: "GET", url: `/v1/api-keys/${id}`, headers: owner.headers })).json(),
  );
}

function expectInsufficient(response: { statusCode: number; json(): Record<string, unknown> }) {
  expect(response.statusCode).toBe(403);
  expect(response.json()).toMatchObject({
    statusCode: 403,
    error: "Forbidden",
    code: "insufficient_authority",
  });
}

describe("create", () => {
  test("a caller can grant what it holds", async () => {
    const { testApp, manager } = await withManager();
    const response = await send(testApp, manager, "POST", "/v1/api-keys", {
      permissions: ["images:create", "api_keys:read"],
    });
    expect(response.statusCode).toBe(200);
  });

  test("a caller cannot grant permissions it lacks; the message names each of them", async () => {
    const { testApp, owner, manager } = await withManager();
    const before = (
      await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: owner.headers })
    ).json();
    const response = await send(testApp, manager, "POST", "/v1/api-keys", {
      permissions: ["images:create", "images:store", "usage:read"],
    });
    expectInsufficient(response);
    const message = response.json().message;
    expect(message).toContain("images:store");
    expect(message).toContain("usage:read");
    expect(message).not.toContain("images:create");
    const after = (
      await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: owner.headers })
    ).json();
    expect(after.data.map(withoutLastUse)).toEqual(before.data.map(withoutLastUse));
  });

  test("a caller without all_future_permissions cannot set it", async () => {
    const { testApp, manager } = await withManager();
    const response = await send(testApp, manager, "POST", "/v1/api-keys", {
      permissions: [],
      all_future_permissions: true,
    });
    expectInsufficient(response);
    expect(response.json().message).toContain("all_future_permissions");
  });

  test("an all-future caller can grant anything, all_future_permissions included", async () => {
    const { testApp, owner } = await withManager();
    const response = await send(testApp, owner, "POST", "/v1/api-keys", {
      permissions: [],
      all_future_permissions: true,
    });
    expect(response.statusCode).toBe(200);
  });
});

describe("update and disable of a key holding more than the caller", () => {
  test.each([
    ["a rename", { name: "renamed", permissions: ["images:store"] }],
    ["a narrowing to what the caller holds", { permissions: ["images:create"] }],
    ["a disable through update", { permissions: ["images:store"], disabled: true }],
  ])("%s is refused naming the lacking permission, and changes nothing", async (_label, payload) => {
    const { testApp, owner, manager } = await withManager();
    const target = await seedKey(testApp, owner, { name: "storer", permissions: ["images:store"] });
    const before = await recordOf(testApp, owner, target.id);
    const response = await send(testApp, manager, "POST", `/v1/api-keys/${target.id}`, payload);
    expectInsufficient(response);
    expect(response.json().message).toContain("images:store");
    expect(await recordOf(testApp, owner, target.id)).toEqual(before);
  });

  test("DELETE is refused naming the lacking permission, and the key keeps working", async () => {
    const { testApp, owner, manager } = await withManager();
    const target = await keyWith(testApp, owner, ["api_keys:read", "usage:read"]);
    const response = await send(testApp, manager, "DELETE", `/v1/api-keys/${target.id}`);
    expectInsufficient(response);
    expect(response.json().message).toContain("usage:read");
    expect(response.json().message).not.toContain("api_keys:read");
    const stillWorks = await testApp.app.inject({
      method: "GET",
      url: "/v1/api-keys",
      headers: target.headers,
    });
    expect(stillWorks.statusCode).toBe(200);
  });

  test.each([
    ["renamed", "POST", { name: "renamed", permissions: [] }],
    ["disabled", "DELETE", undefined],
  ] as const)(
    "a key with all_future_permissions cannot be %s by a caller without it",
    async (_l, method, body) => {
      const { testApp, owner, manager } = await withManager();
      const response = await send(testApp, manager, method, `/v1/api-keys/${owner.id}`, body);
      expectInsufficient(response);
      expect(response.json().message).toContain("all_future_permissions");
      expect((await recordOf(testApp, owner, owner.id)).enabled).toBe(true);
    },
  );

  test("granting a key more than the caller holds through update is refused", async () => {
    const { testApp, owner, manager } = await withManager();
    const target = await keyWith(testApp, owner, ["images:create"]);
    const response = await send(testApp, manager, "POST", `/v1/api-keys/${target.id}`, {
      permissions: ["images:create", "usage:read"],
    });
    expectInsufficient(response);
    expect(response.json().message).toContain("usage:read");
  });

  test("a key within the caller's authority can be updated and disabled", async () => {
    const { testApp, owner, manager } = await withManager();
    const target = await keyWith(testApp, owner, ["images:create"]);
    const updated = await send(testApp, manager, "POST", `/v1/api-keys/${target.id}`, {
      name: "renamed",
      permissions: ["images:create", "api_keys:read"],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().permissions).toEqual(["images:create", "api_keys:read"]);
    const disabled = await send(testApp, manager, "DELETE", `/v1/api-keys/${target.id}`);
    expect(disabled.statusCode).toBe(204);
  });
});

describe("a key managing itself", () => {
  test("can rename itself and drop permissions, keeping its credentials", async () => {
    const { testApp, manager } = await withManager();
    const renamed = await send(testApp, manager, "POST", `/v1/api-keys/${manager.id}`, {
      name: "me",
      permissions: MANAGER,
    });
    expect(renamed.statusCode).toBe(200);
    const narrowed = await send(testApp, manager, "POST", `/v1/api-keys/${manager.id}`, {
      name: "me",
      permissions: ["api_keys:read", "api_keys:create_update"],
    });
    expect(narrowed.statusCode).toBe(200);
    expect(narrowed.json().permissions).toEqual(["api_keys:read", "api_keys:create_update"]);
    // The dropped permission is gone: it can no longer grant images:create.
    const grant = await send(testApp, manager, "POST", "/v1/api-keys", { permissions: ["images:create"] });
    expectInsufficient(grant);
  });

  test("cannot raise itself above what it holds", async () => {
    const { testApp, owner, manager } = await withManager();
    const before = await recordOf(testApp, owner, manager.id);
    for (const payload of [
      { permissions: [...MANAGER, "usage:read"] },
      { permissions: [], all_future_permissions: true },
    ]) {
      const response = await send(testApp, manager, "POST", `/v1/api-keys/${manager.id}`, payload);
      expectInsufficient(response);
    }
    expect(await recordOf(testApp, owner, manager.id)).toEqual(before);
  });
});
