import { describe, expect, test } from "vitest";
import { configurationOf, LatchkeyError } from "@latchkey/client";
import { startRealServer } from "./real-server.js";

async function rejection(promise: Promise<unknown>): Promise<LatchkeyError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(LatchkeyError);
  return error as LatchkeyError;
}

describe("client.keys against a real server", () => {
  test("create, get, update, disable, list and enable round-trip through the REST interface", async () => {
    const server = await startRealServer();
    const client = server.clientFor(await server.owner());

    const created = await client.keys.create({
      name: "billing worker",
      description: "renders invoices",
      permissions: ["images:create", "api_keys:read"],
    });
    expect(created.api_key).toMatch(/^lksk_/);
    expect(created.enabled).toBe(true);

    const read = await client.keys.get(created.id);
    expect(read).toEqual({ ...created, api_key: undefined });
    expect(read).not.toHaveProperty("api_key");

    const updated = await client.keys.update(created.id, {
      ...configurationOf(read),
      name: "invoice worker",
    });
    expect(updated).toMatchObject({ name: "invoice worker", description: "renders invoices" });
    expect(updated.permissions).toEqual(["images:create", "api_keys:read"]);

    await client.keys.disable(created.id);
    await client.keys.disable(created.id); // repeating a disable succeeds
    const enabledOnly = await client.keys.list();
    expect(enabledOnly.data.map((key) => key.id)).not.toContain(created.id);
    const withDisabled = await client.keys.list({ includeDisabled: true, withPermission: ["images:create"] });
    expect(withDisabled.data.map((key) => [key.id, key.enabled])).toContainEqual([created.id, false]);
    expect(withDisabled.pagination.next_page_start).toBeNull();

    const enabled = await client.keys.enable(created.id);
    expect(enabled.enabled).toBe(true);
  });

  test("an update replaces the whole configuration: omitted members return to their defaults", async () => {
    const server = await startRealServer();
    const client = server.clientFor(await server.owner());
    const created = await client.keys.create({
      name: "named",
      description: "described",
      permissions: ["usage:read"],
    });
    const updated = await client.keys.update(created.id, { permissions: ["usage:read"] });
    expect(updated.name).toMatch(/^Key created \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(updated.description).toBeNull();
  });

  test("enable keeps the name, description and permissions of a disabled key", async () => {
    const server = await startRealServer();
    const client = server.clientFor(await server.owner());
    const created = await client.keys.create({
      name: "nightly export",
      description: "exports usage to the warehouse",
      permissions: ["usage:read", "images:read"],
      disabled: true,
    });
    expect(created.enabled).toBe(false);

    const enabled = await client.keys.enable(created.id);

    expect(enabled).toMatchObject({
      id: created.id,
      name: "nightly export",
      description: "exports usage to the warehouse",
      permissions: ["images:read", "usage:read"],
      all_future_permissions: false,
      enabled: true,
    });
    // The original secret works again (enable never rotates it).
    const asEnabledKey = server.clientFor({ apiId: created.api_id, secret: created.api_key });
    const error = await rejection(asEnabledKey.keys.list());
    expect(error).toMatchObject({ status: 403, code: "missing_permission" });
  });

  test("enable keeps an all-future key all-future", async () => {
    const server = await startRealServer();
    const client = server.clientFor(await server.owner());
    const created = await client.keys.create({
      name: "admin",
      permissions: [],
      all_future_permissions: true,
    });
    await client.keys.disable(created.id);
    const enabled = await client.keys.enable(created.id);
    expect(enabled).toMatchObject({ name: "admin", all_future_permissions: true, enabled: true });
  });

  test("server errors arrive as LatchkeyError with status, code, message and the parsed body", async () => {
    const server = await startRealServer();
    const client = server.clientFor(await server.owner());

    const missing = await rejection(client.keys.get("key_0000000000000000000000"));
    expect(missing).toMatchObject({ status: 404, code: "not_found" });
    expect(missing.message).toContain("key_0000000000000000000000");
    expect(missing.body).toMatchObject({ statusCode: 404, error: "Not Found", code: "not_found" });
    expect(missing.requestId).toEqual(expect.any(String));

    const invalid = await rejection(client.keys.create({ permissions: ["images:fly"] }));
    expect(invalid).toMatchObject({ status: 400, code: "invalid_request" });
    expect(invalid.body?.validation_errors).toEqual([
      { path: "/permissions/0", message: 'unknown permission "images:fly"' },
    ]);

    const stranger = server.clientFor({ apiId: "lkid_nobody", secret: "lksk_nothing" });
    expect(await rejection(stranger.keys.list())).toMatchObject({ status: 401, code: "unauthorized" });
  });

  test("listAll follows next_page_start to the end, without repeats, while keys are being created", async () => {
    const server = await startRealServer();
    const owner = await server.owner();
    const client = server.clientFor(owner);
    for (let index = 0; index < 7; index++) {
      await client.keys.create({ name: `existing ${index}`, permissions: ["images:read"] });
    }
    const before = (await client.keys.list({ count: 100 })).data.map((key) => key.id);
    expect(before).toHaveLength(8); // seven plus the owner key

    const seen: string[] = [];
    let pages = 0;
    for await (const page of client.keys.listAll({ count: 3 })) {
      pages++;
      seen.push(...page.data.map((key) => key.id));
      // Newer keys land before the cursor, so they neither shift nor repeat the pages still to come.
      await client.keys.create({ name: `created during page ${pages}`, permissions: ["images:read"] });
    }

    expect(pages).toBe(3);
    expect(seen).toEqual(before);
  });

  test("listAll passes filters on every page", async () => {
    const server = await startRealServer();
    const client = server.clientFor(await server.owner());
    for (let index = 0; index < 3; index++) {
      const key = await client.keys.create({ name: `usage ${index}`, permissions: ["usage:read"] });
      if (index === 0) await client.keys.disable(key.id);
    }
    await client.keys.create({ name: "other", permissions: ["images:read"] });

    const names: string[] = [];
    for await (const page of client.keys.listAll({
      count: 1,
      includeDisabled: true,
      withPermission: ["usage:read"],
    })) {
      names.push(...page.data.map((key) => key.name));
    }
    // The owner key is all-future, so it allows usage:read too.
    expect(names).toEqual(["usage 2", "usage 1", "usage 0", "Owner key"]);
  });
});
