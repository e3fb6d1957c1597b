import { expect, test } from "vitest";
import { startRealServer } from "./real-server.js";

test("the client lists by metadata and name prefix, page after page, against a real server", async () => {
  const server = await startRealServer();
  const client = server.clientFor(await server.owner());
  for (let i = 0; i < 5; i++) {
    await client.keys.create({
      name: `${i % 2 === 0 ? "web" : "cli"} ${i}`,
      permissions: ["images:create"],
      metadata: { team: "billing", "shard.id": String(i % 2) },
    });
  }
  const names = async (options: Parameters<typeof client.keys.listAll>[0]) => {
    const found: string[] = [];
    for await (const page of client.keys.listAll({ count: 1, ...options })) {
      found.push(...page.data.map((key) => key.name));
    }
    return found;
  };
  expect(await names({ metadata: { team: "billing", "shard.id": "0" } })).toEqual([
    "web 4",
    "web 2",
    "web 0",
  ]);
  expect(await names({ namePrefix: "cli", metadata: { team: "billing" } })).toEqual(["cli 3", "cli 1"]);
  expect(await names({ metadata: { team: "ops" } })).toEqual([]);
});

test("a rotation keeps the key's networks and metadata, and an update that omits them keeps them", async () => {
  const server = await startRealServer();
  const client = server.clientFor(await server.owner());
  const created = await client.keys.create({
    name: "limited",
    permissions: ["images:create"],
    allowed_cidrs: ["127.0.0.0/8", "::1/128"],
    metadata: { team: "billing" },
  });
  const renamed = await client.keys.update(created.id, { name: "renamed", permissions: ["images:create"] });
  expect(renamed).toMatchObject({ allowed_cidrs: ["127.0.0.0/8", "::1/128"], metadata: { team: "billing" } });
  const rotated = await client.keys.rotate(created.id, { store: () => undefined });
  expect(rotated).toMatchObject({
    name: "renamed",
    allowed_cidrs: ["127.0.0.0/8", "::1/128"],
    metadata: { team: "billing" },
  });
});
