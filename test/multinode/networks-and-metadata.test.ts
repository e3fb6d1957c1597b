import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { type NodeProcess, showNodeOutputOnFailure } from "./node-processes.js";
import { startThreeNodes, type ThreeNodes } from "./three-nodes.js";

/**
 * Three nodes over one PostgreSQL schema and one Redis, record cache on: a key's networks changed
 * through one node hold on the very next request at every other node (which had the key cached), an
 * update in the spec's fields only keeps them, and metadata written through any node is found by all.
 */
describeWithServices(["postgres", "redis"], "allowed_cidrs and metadata across three nodes", (services) => {
  let cluster: ThreeNodes | undefined;
  let nodes: NodeProcess[] = [];
  let owner: { authorization: string };
  showNodeOutputOnFailure(() => nodes);

  beforeAll(async () => {
    cluster = await startThreeNodes(services, "networks");
    ({ nodes, owner } = cluster);
  }, scaledMs(60_000));

  afterAll(async () => {
    await cluster?.stop();
  });

  const node = (i: number) => nodes[i] as NodeProcess;

  async function post(at: NodeProcess, path: string, body: unknown) {
    const response = await fetch(`${at.baseUrl}${path}`, {
      method: "POST",
      headers: { ...owner, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(json)).toBe(200);
    return json;
  }

  test("a change of networks through one node is enforced by the others on their next request", async () => {
    const key = await post(node(0), "/v1/api-keys", {
      name: "limited",
      permissions: ["api_keys:read"],
      allowed_cidrs: ["127.0.0.0/8", "::1/128"],
    });
    const auth = basicAuth(key.api_id as string, key.api_key as string);
    const read = (at: NodeProcess) =>
      fetch(`${at.baseUrl}/v1/api-keys/${key.id as string}`, { headers: auth });
    // Every node serves the key, and caches it.
    for (const at of nodes) for (let i = 0; i < 3; i++) expect((await read(at)).status).toBe(200);

    await post(node(0), `/v1/api-keys/${key.id as string}`, {
      name: "limited",
      permissions: ["api_keys:read"],
      allowed_cidrs: ["203.0.113.0/24"],
    });
    for (const at of [node(1), node(2)]) {
      const refused = await read(at);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "ip_not_allowed" });
    }

    // An official hcti.io client's update (the spec's fields only) through node 2 keeps the networks.
    const renamed = await post(node(1), `/v1/api-keys/${key.id as string}`, {
      name: "renamed",
      description: null,
      disabled: false,
      permissions: ["api_keys:read"],
      all_future_permissions: false,
    });
    expect(renamed.allowed_cidrs).toEqual(["203.0.113.0/24"]);
    expect((await read(node(2))).status).toBe(403);

    await post(node(2), `/v1/api-keys/${key.id as string}`, {
      permissions: ["api_keys:read"],
      allowed_cidrs: null,
    });
    for (const at of [node(0), node(1)]) expect((await read(at)).status).toBe(200);
  });

  test("metadata written through each node is found by a filtered list on any node", async () => {
    const tag = randomUUID();
    for (const [i, at] of nodes.entries()) {
      await post(at, "/v1/api-keys", {
        name: `m-${i}`,
        permissions: [],
        metadata: { batch: tag, node: String(i) },
      });
    }
    for (const at of nodes) {
      const response = await fetch(`${at.baseUrl}/v1/api-keys?metadata[batch]=${tag}&count=2`, {
        headers: owner,
      });
      const page = (await response.json()) as {
        data: { name: string }[];
        pagination: { next_page_start: string };
      };
      expect(page.data.map((k) => k.name)).toEqual(["m-2", "m-1"]);
      const rest = await fetch(
        `${at.baseUrl}/v1/api-keys?metadata[batch]=${tag}&count=2&page_start=${page.pagination.next_page_start}`,
        { headers: owner },
      );
      expect(((await rest.json()) as { data: { name: string }[] }).data.map((k) => k.name)).toEqual(["m-0"]);
    }
  });
});
