import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { startThrowawaySentinels, type ThrowawaySentinels } from "../helpers/redis-sentinel.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { type NodeProcess, showNodeOutputOnFailure } from "./node-processes.js";
import {
  expectExactAcrossFailover,
  expectExactAtOnce,
  startTopologyNodes,
  type TopologyNodes,
} from "./topology-nodes.js";

/**
 * Three nodes on a Sentinel-managed master of this suite's own (a master, a replica, three sentinels),
 * with replica acknowledgement: the same exactness as on one Redis, and the master SIGKILLed during
 * bursts while the sentinels promote its replica. docs/several-nodes.md.
 */
describeWithServices(["postgres", "redisServer"], "three nodes on a Sentinel-managed master", (services) => {
  let sentinels: ThrowawaySentinels;
  let topology: TopologyNodes;
  let nodes: NodeProcess[] = [];
  showNodeOutputOnFailure(() => nodes);
  afterEach((context) => {
    if (context.task.result?.state !== "fail") return;
    for (const server of [...sentinels.servers, ...sentinels.sentinels]) {
      console.error(`--- redis-server ${server.port} (tail) ---\n${server.output().slice(-3000)}`);
    }
  });

  beforeAll(async () => {
    sentinels = await startThrowawaySentinels(services.redisServer);
    topology = await startTopologyNodes(services.postgres, sentinels.url);
    ({ nodes } = topology);
  }, scaledMs(120_000));

  afterAll(async () => {
    await topology?.stop();
    await sentinels?.stop();
  });

  test("150 reads against 100 and 30 writes against 20 at once over three nodes, every core busy: exactly the allowances", async () => {
    const { owner } = await topology.newOrganization();
    await expectExactAtOnce(nodes, owner);
  });

  test("the master SIGKILLed during bursts, its replica promoted: 0 over-admissions, refusals hold no slot, service resumes", async () => {
    const { owner } = await topology.newOrganization();
    const master = await sentinels.master();
    await expectExactAcrossFailover({
      nodes,
      owner,
      topology: "sentinel",
      kill: () => master.stop(),
      promoted: () =>
        vi.waitFor(async () => expect(await sentinels.master()).not.toBe(master), {
          timeout: scaledMs(30_000),
          interval: 100,
        }),
      // Back as a replica of the new master, as a careful supervisor restarts it: without persistence,
      // a master back as a master is empty, and a later promotion of it would lose every slot. Empty
      // too until its first sync, and the sentinels would promote it meanwhile (a sentinel starved of
      // CPU took the new master for down a second after the promotion and made it the master again:
      // 133 admitted of 100), so it comes back unpromotable (replica-priority 0).
      restart: async () => {
        await master.start([
          "--replicaof",
          "127.0.0.1",
          String((await sentinels.master()).port),
          "--replica-priority",
          "0",
        ]);
        // That second failover, on demand: the sentinels find no replica they may promote.
        expect(await sentinels.forceFailover(master)).toMatch(/^NOGOODSLAVE/);
      },
      healed: () => sentinels.settled(1),
    });
    expect(await sentinels.master()).not.toBe(master);
  });
});
