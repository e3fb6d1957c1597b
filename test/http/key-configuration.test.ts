import { describe, expect, test } from "vitest";
import { PERMISSION_CATALOGUE } from "../../src/domain/permissions.js";
import { fakeClock, type TestApp, type TestKey, ownerApp } from "../helpers/build-test-app.js";

/** The request fields of create and update (spec "Request fields", docs/keys.md). */

function create(testApp: TestApp, owner: TestKey, payload: unknown) {
  return testApp.app.inject({
    method: "POST",
    url: "/v1/api-keys",
    headers: owner.headers,
    payload: payload as Record<string, unknown>,
  });
}

function update(testApp: TestApp, owner: TestKey, id: string, payload: unknown) {
  return testApp.app.inject({
    method: "POST",
    url: `/v1/api-keys/${id}`,
    headers: owner.headers,
    payload: payload as Record<string, unknown>,
  });
}

describe("name", () => {
  test.each([
    ["omitted", {}],
    ["null", { name: null }],
    ["empty", { name: "" }],
    ["white space", { name: " \t\n " }],
  ])("%s becomes 'Key created YYYY-MM-DD HH:mm:ss' from the UTC creation time", async (_label, fields) => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    testApp.clock?.set(Date.parse("2027-01-02T03:04:05.678Z"));
    const response = await create(testApp, owner, { ...fields, permissions: [] });
    expect(response.statusCode).toBe(200);
    expect(response.json().name).toBe("Key created 2027-01-02 03:04:05");
    expect(response.json().created_at).toBe("2027-01-02T03:04:05.678Z");
  });

  test("on update, a default name comes from the original creation time, not the update time", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    testApp.clock?.set(Date.parse("2027-01-02T03:04:05.000Z"));
    const created = (await create(testApp, owner, { name: "named", permissions: [] })).json();
    testApp.clock?.set(Date.parse("2027-03-04T05:06:07.000Z"));
    const updated = await update(testApp, owner, created.id, { name: "  ", permissions: [] });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().name).toBe("Key created 2027-01-02 03:04:05");
    expect(updated.json().created_at).toBe("2027-01-02T03:04:05.000Z");
    expect(updated.json().updated_at).toBe("2027-03-04T05:06:07.000Z");
  });

  test.each([
    ["ASCII", "n"],
    ["emoji (two UTF-16 units each)", "😀"],
  ])("of 255 %s characters is accepted and 256 is 400", async (_label, unit) => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const ok = await create(testApp, owner, { name: unit.repeat(255), permissions: [] });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().name).toBe(unit.repeat(255));
    const tooLong = await create(testApp, owner, { name: unit.repeat(256), permissions: [] });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().validation_errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "/name" })]),
    );
    const tooLongUpdate = await update(testApp, owner, ok.json().id, {
      name: unit.repeat(256),
      permissions: [],
    });
    expect(tooLongUpdate.statusCode).toBe(400);
  });
});

describe("description", () => {
  test.each([
    ["omitted", {}],
    ["null", { description: null }],
    ["blank", { description: "   " }],
  ])("%s clears it, on create and on update", async (_label, fields) => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const created = await create(testApp, owner, { ...fields, permissions: [] });
    expect(created.json().description).toBeNull();
    const withText = await create(testApp, owner, { description: "nightly export", permissions: [] });
    expect(withText.json().description).toBe("nightly export");
    const cleared = await update(testApp, owner, withText.json().id, { ...fields, permissions: [] });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().description).toBeNull();
  });

  test.each([
    ["ASCII", "d"],
    ["emoji", "🔑"],
  ])("of 2000 %s characters is accepted and 2001 is 400", async (_label, unit) => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const ok = await create(testApp, owner, { description: unit.repeat(2000), permissions: [] });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().description).toBe(unit.repeat(2000));
    const tooLong = await create(testApp, owner, { description: unit.repeat(2001), permissions: [] });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().validation_errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "/description" })]),
    );
  });
});

describe("unknown members and wrong types", () => {
  test("a body with 'enabled' is 400 and points to 'disabled'", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await create(testApp, owner, { enabled: false, permissions: [] });
    expect(response.statusCode).toBe(400);
    const issue = response.json().validation_errors.find((i: { path: string }) => i.path === "/enabled");
    expect(issue?.message).toContain('"disabled"');
    expect(response.json().message).toContain("disabled");
  });

  test.each([
    ["api_key", { api_key: "lksk_mine", permissions: [] }],
    ["id", { id: "key_0000000000000000000000", permissions: [] }],
    ["a misspelt member", { permission: ["usage:read"], permissions: [] }],
  ])("%s in the body is 400 naming it, not ignored", async (_label, body) => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await create(testApp, owner, body);
    expect(response.statusCode).toBe(400);
    const unknown = Object.keys(body).find((member) => member !== "permissions");
    expect(response.json().validation_errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: `/${unknown}` })]),
    );
  });

  test.each([
    ["disabled: 'true'", { disabled: "true", permissions: [] }, "/disabled"],
    ["disabled: 1", { disabled: 1, permissions: [] }, "/disabled"],
    [
      "all_future_permissions: 'true'",
      { all_future_permissions: "true", permissions: [] },
      "/all_future_permissions",
    ],
    ["permissions as a string", { permissions: "api_keys:read" }, "/permissions"],
    ["a number in permissions", { permissions: [7] }, "/permissions/0"],
    ["description as a number", { description: 5, permissions: [] }, "/description"],
  ])("%s is 400 at its path", async (_label, body, path) => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await create(testApp, owner, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().validation_errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path })]),
    );
  });
});

describe("permissions", () => {
  test("are required, on create and on update", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await create(testApp, owner, { name: "no permissions member" });
    expect(response.statusCode).toBe(400);
    expect(response.json().validation_errors).toEqual([
      expect.objectContaining({ path: "/permissions", message: expect.stringContaining("required") }),
    ]);
    const updated = await update(testApp, owner, owner.id, { name: "no permissions member" });
    expect(updated.statusCode).toBe(400);
  });

  test("an unknown name is 400 naming it", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await create(testApp, owner, { permissions: ["usage:read", "images:fly"] });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toContain("images:fly");
    expect(response.json().validation_errors).toEqual([expect.objectContaining({ path: "/permissions/1" })]);
  });

  test("duplicates are folded and the record lists them in catalogue order", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await create(testApp, owner, {
      permissions: ["usage:read", "api_keys:read", "images:create", "usage:read", "api_keys:read"],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().permissions).toEqual(["images:create", "api_keys:read", "usage:read"]);
    const read = await testApp.app.inject({
      method: "GET",
      url: `/v1/api-keys/${response.json().id}`,
      headers: owner.headers,
    });
    expect(read.json().permissions).toEqual(["images:create", "api_keys:read", "usage:read"]);
  });

  test("an empty list is a key that holds nothing", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await create(testApp, owner, { permissions: [] });
    expect(response.json()).toMatchObject({ permissions: [], all_future_permissions: false });
  });

  test("all_future_permissions lists the whole catalogue and requires permissions []", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await create(testApp, owner, { permissions: [], all_future_permissions: true });
    expect(response.statusCode).toBe(200);
    expect(response.json().all_future_permissions).toBe(true);
    expect(response.json().permissions).toEqual([...PERMISSION_CATALOGUE]);
    const refused = await create(testApp, owner, {
      permissions: ["usage:read"],
      all_future_permissions: true,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().validation_errors).toEqual([expect.objectContaining({ path: "/permissions" })]);
  });
});

describe("the created record", () => {
  test("has the documented fields and formats; the secret is a checksummed lksk_ token", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await create(testApp, owner, {
      name: "exporter",
      description: "nightly export",
      permissions: ["images:read"],
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(
      [
        "id",
        "api_id",
        "api_key",
        "name",
        "description",
        "enabled",
        "permissions",
        "all_future_permissions",
        "created_at",
        "updated_at",
        "last_used_at",
        "leaked_at",
        "expires_at",
        "expired",
      ].sort(),
    );
    expect(body).toMatchObject({
      name: "exporter",
      description: "nightly export",
      enabled: true,
      permissions: ["images:read"],
      all_future_permissions: false,
      created_at: "2026-11-22T10:00:00.000Z",
      updated_at: "2026-11-22T10:00:00.000Z",
      last_used_at: null,
    });
    expect(body.id).toMatch(/^key_[0-9A-Za-z]{22}$/);
    expect(body.api_id).toMatch(/^lkid_[0-9A-Za-z]{22}$/);
    expect(body.api_id).not.toBe(body.id);
    expect(body.api_key).toMatch(/^lksk_[0-9A-Za-z]{38}$/);
  });

  test("'disabled': true creates the key already disabled", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await create(testApp, owner, { disabled: true, permissions: ["api_keys:read"] });
    expect(response.statusCode).toBe(200);
    expect(response.json().enabled).toBe(false);
    const { api_id, api_key } = response.json();
    const attempt = await testApp.app.inject({
      method: "GET",
      url: "/v1/api-keys",
      headers: { authorization: `Basic ${Buffer.from(`${api_id}:${api_key}`).toString("base64")}` },
    });
    expect(attempt.statusCode).toBe(401);
  });
});
