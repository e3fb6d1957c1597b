import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { vi } from "vitest";
import { readClusterShards, readReplication, type ShardState } from "../../src/redis/topology-state.js";
import { freePort } from "./free-port.js";
import { askRedis, startThrowawayRedis, type ThrowawayRedis } from "./redis-server.js";
import { scaledMs } from "./start-deadline.js";

const run = promisify(execFile);

/** A Redis Cluster of the test's own: `masters` masters with `replicas` replicas each, on free ports. */
export interface ThrowawayCluster {
  /** redis+cluster://127.0.0.1:<port>,... listing every node as a seed. */
  url: string;
  /** Every node, masters first as created (which node is a master changes with failovers). */
  nodes: ThrowawayRedis[];
  /** The shards as the cluster sees them now (asked of a live node). */
  shards(): Promise<ShardState[]>;
  /** The node that serves `key`'s slot now. */
  masterOf(key: string): Promise<ThrowawayRedis>;
  /**
   * Waits until every live node says the cluster is ok and every master has `replicasOnline` replicas
   * in sync (by default as many as it was created with).
   */
  settled(replicasOnline?: number): Promise<void>;
  /** Moves the slots of `source` up to and including the slot of `key` to `target` (`redis-cli --cluster reshard`). */
  reshardThrough(key: string, source: ThrowawayRedis, target: ThrowawayRedis): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterShape {
  masters?: number;
  replicas?: number;
  /** cluster-node-timeout: how long a master may be silent before its replica takes over. */
  nodeTimeoutMs?: number;
}

const portOf = (address: string) => Number(address.slice(address.lastIndexOf(":") + 1));

/**
 * Starts `masters * (1 + replicas)` `redis-server --cluster-enabled yes` processes and joins them with
 * `redis-cli --cluster create --cluster-replicas <replicas>` (a single master without replicas gets
 * every slot by `CLUSTER ADDSLOTSRANGE`: redis-cli wants three masters), then waits until it settles.
 * A node stopped and started again keeps its `nodes.conf` and rejoins (as a replica, once failed over).
 */
export async function startThrowawayCluster(
  redisServer: string,
  redisCli: string,
  shape: ClusterShape = {},
): Promise<ThrowawayCluster> {
  const masters = shape.masters ?? 3;
  const replicas = shape.replicas ?? 1;
  const dir = mkdtempSync(join(tmpdir(), "latchkey-cluster-"));
  const ports = await Promise.all(Array.from({ length: masters * (1 + replicas) }, () => freePort()));
  const nodes = await Promise.all(
    ports.map((port) =>
      startThrowawayRedis(redisServer, port, {
        dir,
        args: [
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          `nodes-${port}.conf`,
          // Replicas' full syncs write an RDB file: one each, so a restart never loads another's.
          "--dbfilename",
          `dump-${port}.rdb`,
          "--cluster-node-timeout",
          String(shape.nodeTimeoutMs ?? 1000),
          // A node learns its address from the others; a cluster of one would announce none.
          "--cluster-announce-ip",
          "127.0.0.1",
          // A cluster with a shard down still serves the others' slots.
          "--cluster-require-full-coverage",
          "no",
        ],
      }),
    ),
  );
  const addresses = ports.map((port) => `127.0.0.1:${port}`);
  if (masters === 1 && replicas === 0) {
    await askRedis(ports[0] as number, (redis) => redis.call("CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
  } else {
    await run(
      redisCli,
      ["--cluster", "create", ...addresses, "--cluster-replicas", String(replicas), "--cluster-yes"],
      {
        timeout: scaledMs(30_000),
      },
    );
  }
  const live = () => nodes.filter((node) => node.running());
  const shards = () => askRedis((live()[0] as ThrowawayRedis).port, readClusterShards);
  const cluster: ThrowawayCluster = {
    url: `redis+cluster://${addresses.join(",")}`,
    nodes,
    shards,
    async masterOf(key) {
      const slot = Number(
        await askRedis((live()[0] as ThrowawayRedis).port, (redis) => redis.call("CLUSTER", "KEYSLOT", key)),
      );
      const shard = (await shards()).find((s) => s.slots.some(([from, to]) => slot >= from && slot <= to));
      const node = shard && nodes.find((n) => n.port === portOf(shard.master));
      if (!node) throw new Error(`no master serves slot ${slot}`);
      return node;
    },
    async settled(replicasOnline = replicas) {
      await vi.waitFor(
        async () => {
          for (const node of live()) {
            const info = await askRedis(node.port, (redis) => redis.call("CLUSTER", "INFO"));
            if (!String(info).includes("cluster_state:ok"))
              throw new Error(`${node.port}: ${String(info).split("\n")[0]}`);
          }
          const now = await shards();
          if (now.length !== masters) throw new Error(`${now.length} shards serve slots, not ${masters}`);
          for (const shard of now) {
            // The master's own view: the cluster's gossip calls a replica online before it is in sync.
            const own = shard.masterUp ? await askRedis(portOf(shard.master), readReplication) : undefined;
            if (!own?.masterUp || own.replicasOnline < replicasOnline) {
              throw new Error(
                `shard of ${shard.master}: master up ${shard.masterUp}, ${own?.replicasOnline} replicas in sync`,
              );
            }
          }
        },
        { timeout: scaledMs(30_000), interval: 100 },
      );
    },
    async reshardThrough(key, source, target) {
      const slot = Number(await askRedis(source.port, (redis) => redis.call("CLUSTER", "KEYSLOT", key)));
      const shard = (await shards()).find((s) => s.master.endsWith(`:${source.port}`));
      // redis-cli moves the source's lowest slots first: as many as it serves up to this one.
      const count = (shard?.slots ?? []).reduce(
        (sum, [low, high]) => sum + Math.max(0, Math.min(high, slot) - low + 1),
        0,
      );
      if (count === 0) throw new Error(`${source.port} does not serve slot ${slot}`);
      const [from, to] = await Promise.all(
        [source, target].map((n) => askRedis(n.port, (redis) => redis.call("CLUSTER", "MYID"))),
      );
      await run(
        redisCli,
        [
          "--cluster",
          "reshard",
          `127.0.0.1:${source.port}`,
          "--cluster-from",
          String(from),
          "--cluster-to",
          String(to),
          "--cluster-slots",
          String(count),
          "--cluster-yes",
        ],
        { timeout: scaledMs(60_000), maxBuffer: 64 * 1024 * 1024 },
      );
    },
    async stop() {
      await Promise.all(nodes.map((node) => node.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.settled();
  return cluster;
}
