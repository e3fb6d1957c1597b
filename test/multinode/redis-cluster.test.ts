import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { sampleValue } from "../helpers/metrics-page.js";
import { latchkey } from "../helpers/processes.js";
import { startThrowawayCluster, type ThrowawayCluster } from "../helpers/redis-cluster.js";
import { askRedis } from "../helpers/redis-server.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { admitted, call, statuses } from "./node-calls.js";
import { type NodeProcess, showNodeOutputOnFailure } from "./node-processes.js";
import {
  expectExactAcrossFailover,
  expectExactAtOnce,
  organizationKey,
  reads,
  startBurst,
  startTopologyNodes,
  type TopologyNodes,
} from "./topology-nodes.js";

/**
 * Three nodes on a Redis Cluster of this suite's own (three masters, one replica each,
 * `redis-cli --cluster create`), with replica acknowledgement: the same exactness as on one Redis,
 * a master SIGKILLed during bursts, and a slot moved (`redis-cli --cluster reshard`) under load.
 * docs/several-nodes.md; `bench/redis-topologies.mjs` runs the longer variants.
 */
describeWithServices(
  ["postgres", "redisServer", "redisCli"],
  "three nodes on a Redis Cluster",
  (services) => {
    let cluster: ThrowawayCluster;
    let topology: TopologyNodes;
    let nodes: NodeProcess[] = [];
    showNodeOutputOnFailure(() => nodes);

    beforeAll(async () => {
      cluster = await startThrowawayCluster(services.redisServer, services.redisCli);
      topology = await startTopologyNodes(services.postgres, cluster.url);
      ({ nodes } = topology);
    }, scaledMs(120_000));

    afterAll(async () => {
      await topology?.stop();
      await cluster?.stop();
    });

    test("150 reads against 100 and 30 writes against 20 at once over three nodes, every core busy: exactly the allowances", async () => {
      const { owner } = await topology.newOrganization();
      await expectExactAtOnce(nodes, owner);
    });

    test("a service token revoked through one node is refused by the others on the next request (its version in the slot of {latchkey}, read beside the organization's)", async () => {
      const { orgId, owner } = await topology.newOrganization();
      const create = async (scope: string) =>
        JSON.parse(
          (
            await latchkey(
              ["service-token", "create", "--name", scope, "--scope", scope, "--json"],
              topology.database,
            )
          ).stdout,
        ) as { id: string; token: string };
      const [provision, platform] = [await create("provision"), await create("authorize")];
      const ask = (node: NodeProcess, group: string | undefined) =>
        fetch(`${node.baseUrl}/v1/authorize`, {
          method: "POST",
          headers: { "x-latchkey-service-token": platform.token, "content-type": "application/json" },
          body: JSON.stringify({ authorization: owner.authorization, permission: "api_keys:read", group }),
        });
      const hits = async (node: NodeProcess) =>
        sampleValue(
          await (await fetch(`${node.baseUrl}/metrics`)).text(),
          "latchkey_record_cache_reads_total",
          {
            record: "service_token",
            outcome: "hit",
          },
        ) ?? 0;
      // Every node caches the token, and serves it from its cache, with and without a group.
      for (const n of nodes) {
        const before = await hits(n);
        for (const group of [undefined, "api-key:read", undefined, "api-key:read"]) {
          expect((await ask(n, group)).status).toBe(200);
        }
        expect(await hits(n)).toBeGreaterThan(before);
      }
      const revoked = await fetch(
        `${(nodes[0] as NodeProcess).baseUrl}/v1/admin/service-tokens/${platform.id}`,
        {
          method: "DELETE",
          headers: { "x-latchkey-service-token": provision.token },
        },
      );
      expect(revoked.status).toBe(204);
      for (const n of nodes) {
        for (const group of ["api-key:read", undefined]) expect((await ask(n, group)).status).toBe(401);
      }
      // The refused requests hold no slot: the limiter's admission, made beside the token's check,
      // was taken back (two per node before the revocation, none after).
      const bucket = organizationKey(topology.prefix, orgId);
      const master = await cluster.masterOf(bucket);
      await vi.waitFor(async () =>
        expect(await askRedis(master.port, (connection) => connection.zcard(bucket))).toBe(2 * nodes.length),
      );
    });

    test("a key disabled through one node is refused by the others on the next request (record versions in the organization's slot)", async () => {
      const { owner } = await topology.newOrganization();
      const created = await call(nodes[0] as NodeProcess, "POST", "/v1/api-keys", owner, {
        permissions: ["api_keys:read"],
      });
      const key = created.body as { id: string; api_id: string; api_key: string };
      const auth = {
        authorization: `Basic ${Buffer.from(`${key.api_id}:${key.api_key}`).toString("base64")}`,
      };
      // Every node caches the key first.
      for (const n of nodes) expect((await call(n, "GET", `/v1/api-keys/${key.id}`, auth)).status).toBe(200);
      const disabled = await call(nodes[0] as NodeProcess, "DELETE", `/v1/api-keys/${key.id}`, owner);
      expect(disabled.status).toBe(204);
      for (const n of nodes) expect((await call(n, "GET", `/v1/api-keys/${key.id}`, auth)).status).toBe(401);
    });

    test("the organization's slot moved to another master under load (redis-cli --cluster reshard): still exact, nothing refused", async () => {
      const { orgId, owner } = await topology.newOrganization();
      const key = organizationKey(topology.prefix, orgId);
      const source = await cluster.masterOf(key);
      const target = cluster.nodes.find(
        (n) => n !== source && n.port !== source.port,
      ) as (typeof cluster.nodes)[number];
      const shards = await cluster.shards();
      const targetMaster = shards.find((s) => !s.master.endsWith(`:${source.port}`));
      const destination = cluster.nodes.find((n) => targetMaster?.master.endsWith(`:${n.port}`)) ?? target;
      const burst = startBurst(nodes, owner);
      let during;
      try {
        await cluster.reshardThrough(key, source, destination);
      } finally {
        during = await burst.stop();
      }
      expect((await cluster.masterOf(key)).port).toBe(destination.port);
      const after = await reads(nodes, owner, 110);
      expect(statuses([...during, ...after])[503]).toBeUndefined();
      expect(admitted(during) + admitted(after)).toBe(100);
      expect(after.at(-1)?.status).toBe(429);
    });

    test("the master of the organization's slot SIGKILLed during bursts: 0 over-admissions, refusals hold no slot, service resumes", async () => {
      const { orgId, owner } = await topology.newOrganization();
      const key = organizationKey(topology.prefix, orgId);
      const master = await cluster.masterOf(key);
      await expectExactAcrossFailover({
        nodes,
        owner,
        topology: "cluster",
        kill: () => master.stop(),
        promoted: () =>
          vi.waitFor(async () => expect((await cluster.masterOf(key)).port).not.toBe(master.port), {
            timeout: scaledMs(30_000),
            interval: 100,
          }),
        restart: () => master.start(),
        healed: () => cluster.settled(1),
      });
    });
  },
);
