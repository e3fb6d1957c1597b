import { describe, expect, test } from "vitest";
import {
  type LatchkeyClient,
  LatchkeyError,
  type ResourceFamilyClient,
  type ResourceRecord,
} from "@latchkey/client";
import { RESOURCE_FAMILIES } from "../../src/domain/resource-families.js";
import { startRealServer } from "./real-server.js";

/** `client.proxies`, `client.storageDestinations`, `client.ogConfigs` against a listening server. */

const accessors = {
  proxies: (client) => client.proxies,
  storage_destinations: (client) => client.storageDestinations,
  og_configs: (client) => client.ogConfigs,
} satisfies Record<string, (client: LatchkeyClient) => ResourceFamilyClient>;

describe.each(RESOURCE_FAMILIES)("client for $name", (family) => {
  test("create, get, update, list, listAll and delete", async () => {
    const server = await startRealServer();
    const owner = await server.owner();
    const client = server.clientFor(owner);
    const resource = accessors[family.name](client);

    const created = await resource.create({ name: "first", settings: { region: "eu-west-1" } });
    expect(created).toMatchObject({ name: "first", enabled: true, settings: { region: "eu-west-1" } });
    expect(created.id.startsWith(family.idPrefix)).toBe(true);
    expect(await resource.get(created.id)).toEqual(created);

    const updated = await resource.update(created.id, { name: "renamed", disabled: true });
    expect(updated).toMatchObject({ id: created.id, name: "renamed", enabled: false, settings: {} });

    for (let i = 0; i < 4; i++) await resource.create({ name: `more ${i}` });
    const page = await resource.list({ count: 2 });
    expect(page.data.map((record) => record.name)).toEqual(["more 3", "more 2"]);
    expect(page.pagination.next_page_start).toEqual(expect.any(String));
    const all: ResourceRecord[] = [];
    for await (const each of resource.listAll({ count: 2 })) all.push(...each.data);
    expect(all.map((record) => record.name)).toEqual(["more 3", "more 2", "more 1", "more 0", "renamed"]);

    await resource.delete(created.id);
    await resource.delete(created.id);
    const missing = await resource.get(created.id).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(LatchkeyError);
    expect(missing).toMatchObject({ status: 404, code: "not_found" });
  });

  test("a refused request is a LatchkeyError with the server's code and validation errors", async () => {
    const server = await startRealServer();
    const client = server.clientFor(await server.owner());
    const error = await accessors[family.name](client)
      .create({ name: "x", enabled: true } as never)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(LatchkeyError);
    expect(error).toMatchObject({ status: 400, code: "invalid_request" });
  });
});

test("the client waits out a family's 429 and succeeds", async () => {
  const server = await startRealServer({ LATCHKEY_RATE_WINDOW_SECONDS: "1" });
  const owner = await server.owner();
  await server.setQuota(owner.orgId, "og-config:write", 2);
  const retries: number[] = [];
  const client = server.clientFor(owner, { onRetry: (event) => retries.push(event.attempt) });
  for (let i = 0; i < 3; i++) await client.ogConfigs.create({ name: `c${i}` });
  expect(retries.length).toBeGreaterThan(0);
  expect((await client.ogConfigs.list({ count: 10 })).data).toHaveLength(3);
});

test("storageDestinations.awsExternalId is stable", async () => {
  const server = await startRealServer();
  const client = server.clientFor(await server.owner());
  const first = await client.storageDestinations.awsExternalId();
  expect(first).toEqual(expect.any(String));
  expect(await client.storageDestinations.awsExternalId()).toBe(first);
});
