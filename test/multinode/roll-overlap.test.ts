import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { expectRollOverlapHonoured } from "../helpers/roll-overlap.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { type NodeProcess, showNodeOutputOnFailure } from "./node-processes.js";
import { startThreeNodes, type ThreeNodes } from "./three-nodes.js";

/**
 * Three nodes over one PostgreSQL schema and one Redis, record cache on: a key rolled through node 1
 * with a short overlap authenticates with both secrets on every node, served from their caches, until
 * the overlap ends, and the old secret is refused by every node on the first request after it.
 */
describeWithServices(["postgres", "redis"], "rolling a key with overlap, on three nodes", (services) => {
  let cluster: ThreeNodes | undefined;
  let nodes: NodeProcess[] = [];
  let owner: { authorization: string };
  showNodeOutputOnFailure(() => nodes);

  beforeAll(async () => {
    cluster = await startThreeNodes(services, "roll");
    ({ nodes, owner } = cluster);
  }, scaledMs(60_000));

  afterAll(async () => {
    await cluster?.stop();
  });

  test("both secrets work on every node during the overlap; the old one is refused right after", async () => {
    const [writer] = nodes as [NodeProcess];
    await expectRollOverlapHonoured({
      writer: writer.baseUrl,
      readers: nodes.map((n) => n.baseUrl),
      owner,
      overlapSeconds: 3,
    });
  }, 120_000);

  test("a key is refused by every node from its expiry on, cached or not, and its expiry recorded once", async () => {
    const [writer] = nodes as [NodeProcess];
    const expiresAt = Date.now() + 3000;
    const created = await fetch(`${writer.baseUrl}/v1/api-keys`, {
      method: "POST",
      headers: { ...owner, "content-type": "application/json" },
      body: JSON.stringify({ permissions: ["api_keys:read"], expires_at: new Date(expiresAt).toISOString() }),
    });
    expect(created.status).toBe(200);
    const key = (await created.json()) as { id: string; api_id: string; api_key: string };
    const read = (node: NodeProcess) =>
      fetch(`${node.baseUrl}/v1/api-keys/${key.id}`, { headers: basicAuth(key.api_id, key.api_key) });
    // Each node caches the key while it works.
    for (const node of nodes) for (let i = 0; i < 3; i++) expect((await read(node)).status).toBe(200);
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThanOrEqual(expiresAt), {
      timeout: 10_000,
      interval: 20,
    });
    const statuses = await Promise.all(nodes.map(read));
    expect(statuses.map((response) => response.status)).toEqual([401, 401, 401]);
    // Every node ran into it; the trail has one entry.
    await vi.waitFor(async () => {
      const audit = await fetch(`${writer.baseUrl}/v1/audit?count=100`, { headers: owner });
      const entries = ((await audit.json()) as { data: { action: string; target_id: string }[] }).data;
      expect(entries.filter((e) => e.action === "key.expired" && e.target_id === key.id)).toHaveLength(1);
    });
  }, 60_000);
});
