import { afterAll, beforeAll, expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { expectChangeSeenAtOnce } from "../helpers/change-under-load.js";
import { sampleValue } from "../helpers/metrics-page.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { type NodeProcess, showNodeOutputOnFailure } from "./node-processes.js";
import { startThreeNodes, type ThreeNodes } from "./three-nodes.js";

const REPETITIONS = 10;

/** What a node's /metrics says about its reads of `GET /v1/api-keys/{id}` and its record cache. */
async function readCounts(node: NodeProcess) {
  const page = await (await fetch(`${node.baseUrl}/metrics`)).text();
  const value = (name: string, labels: Record<string, string>) => sampleValue(page, name, labels) ?? 0;
  const reads = (record: string, outcome: string) =>
    value("latchkey_record_cache_reads_total", { record, outcome });
  return {
    served: value("latchkey_http_requests_total", {
      method: "GET",
      route: "/v1/api-keys/:id",
      status: "200",
    }),
    callerHits: reads("caller_key", "hit"),
    keyHits: reads("key_by_id", "hit"),
  };
}

/**
 * Three nodes over one PostgreSQL schema and one Redis, with the record cache on (the default): a
 * key disabled or changed through node 1 is refused by nodes 2 and 3 on the first request that starts
 * after the change answered, while several clients keep every node busy with that key. The nodes
 * must really serve from their caches meanwhile (their metrics count the hits), and never a stale key.
 */
describeWithServices(["postgres", "redis"], "a change is seen by every node at once", (services) => {
  let cluster: ThreeNodes | undefined;
  let nodes: NodeProcess[] = [];
  let owner: { authorization: string };
  showNodeOutputOnFailure(() => nodes);

  beforeAll(async () => {
    cluster = await startThreeNodes(services, "disable");
    ({ nodes, owner } = cluster);
  }, scaledMs(60_000));

  afterAll(async () => {
    await cluster?.stop();
  });

  async function createKey(writer: NodeProcess, permissions: string[]) {
    const response = await fetch(`${writer.baseUrl}/v1/api-keys`, {
      method: "POST",
      headers: { ...owner, "content-type": "application/json" },
      body: JSON.stringify({ permissions }),
    });
    expect(response.status).toBe(200);
    const created = (await response.json()) as { id: string; api_id: string; api_key: string };
    return { id: created.id, auth: basicAuth(created.api_id, created.api_key) };
  }

  /** Runs the repetitions, then checks that the readers served most reads from their caches. */
  async function expectServedFromCache(readers: NodeProcess[], run: () => Promise<void>) {
    const before = await Promise.all(readers.map(readCounts));
    await run();
    const after = await Promise.all(readers.map(readCounts));
    for (const [i, counts] of after.entries()) {
      const start = before[i] as typeof counts;
      const served = counts.served - start.served;
      expect(served).toBeGreaterThan(100);
      // Each served read needs the caller's key and the key read back: both mostly from the cache.
      expect(counts.callerHits - start.callerHits).toBeGreaterThan(served / 2);
      expect(counts.keyHits - start.keyHits).toBeGreaterThan(served / 2);
    }
  }

  /**
   * REPETITIONS times: a new key with `permissions`, read by nodes 2 and 3 under load until `change`
   * (through node 1) answers, after which they must answer `after` on the first request.
   */
  async function changeSeenByReaders(
    permissions: string[],
    after: number,
    change: (writer: NodeProcess, id: string) => Promise<void>,
  ) {
    const [writer, ...readers] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    await expectServedFromCache(readers, async () => {
      for (let i = 0; i < REPETITIONS; i++) {
        const { id, auth } = await createKey(writer, permissions);
        await expectChangeSeenAtOnce({
          readers: readers.map((n) => n.baseUrl),
          request: (base) => fetch(`${base}/v1/api-keys/${id}`, { headers: auth }),
          before: 200,
          after,
          change: () => change(writer, id),
        });
      }
    });
  }

  test(`disabled through node 1, refused by nodes 2 and 3 at once (${REPETITIONS} times under load)`, async () => {
    await changeSeenByReaders(["api_keys:read"], 401, async (writer, id) => {
      const disabled = await fetch(`${writer.baseUrl}/v1/api-keys/${id}`, {
        method: "DELETE",
        headers: owner,
      });
      expect(disabled.status).toBe(204);
    });
  }, 120_000);

  test(`a permission removed through node 1 is refused by nodes 2 and 3 at once (${REPETITIONS} times under load)`, async () => {
    await changeSeenByReaders(["api_keys:read", "images:read"], 403, async (writer, id) => {
      const updated = await fetch(`${writer.baseUrl}/v1/api-keys/${id}`, {
        method: "POST",
        headers: { ...owner, "content-type": "application/json" },
        body: JSON.stringify({ permissions: ["images:read"] }),
      });
      expect(updated.status).toBe(200);
    });
  }, 120_000);

  test("a key read back by id shows a change made through another node on the next request", async () => {
    const [writer, reader] = nodes as [NodeProcess, NodeProcess];
    const { id } = await createKey(writer, ["images:read"]);
    const read = async () => {
      const response = await fetch(`${reader.baseUrl}/v1/api-keys/${id}`, { headers: owner });
      return (await response.json()) as { name: string };
    };
    for (let i = 0; i < 5; i++) {
      await read();
      const name = `renamed ${i}`;
      const updated = await fetch(`${writer.baseUrl}/v1/api-keys/${id}`, {
        method: "POST",
        headers: { ...owner, "content-type": "application/json" },
        body: JSON.stringify({ name, permissions: ["images:read"] }),
      });
      expect(updated.status).toBe(200);
      expect((await read()).name).toBe(name);
    }
  });
});
