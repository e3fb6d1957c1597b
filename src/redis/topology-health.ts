import calculateSlot from "cluster-key-slot";
import type { Cluster } from "ioredis";
import { isCluster, type RedisClient } from "./connection.js";
import { readClusterShards, readReplication, type ShardState } from "./topology-state.js";
import type { RedisTopologyKind } from "./redis-url.js";

/** What /readyz and the metrics say of Redis: the topology, and what is wrong with it now. */
export interface RedisTopologyHealth {
  topology: RedisTopologyKind;
  /** `degraded` while any problem below holds; requests may still be served. */
  state: "ok" | "degraded";
  /** One sentence per problem, for people (a master down, a failover in progress, no replica). */
  problems: string[];
  /** Masters that serve slots but are down or unreachable now. */
  mastersDown: number;
  /** Masters with no replica online (none can acknowledge a slot, none can take over). */
  mastersWithoutReplica: number;
  /** Whether a master is down and its slots are not yet served by a promoted replica. */
  failoverInProgress: boolean;
}

/** Watches the topology in the background; reads are instant (the last check's answer). */
export interface TopologyMonitor {
  current(): RedisTopologyHealth;
  /** Why no replica can acknowledge a write of `key` now, or undefined (LATCHKEY_REDIS_REPLICAS_ACK). */
  replicaMissing(key: string): string | undefined;
  /** Checks now and resolves with the result (start-up and tests; the timer does the rest). */
  check(): Promise<RedisTopologyHealth>;
  close(): void;
}

export interface TopologyMonitorOptions {
  topology: RedisTopologyKind;
  /** LATCHKEY_REDIS_REPLICAS_ACK=1: a master without a replica then refuses its limited requests. */
  replicasAck: boolean;
  /** How often the topology is read; once a second by default. */
  intervalMs?: number;
}

const ok = (topology: RedisTopologyKind): RedisTopologyHealth => ({
  topology,
  state: "ok",
  problems: [],
  mastersDown: 0,
  mastersWithoutReplica: 0,
  failoverInProgress: false,
});

function summarize(
  topology: RedisTopologyKind,
  shards: ShardState[],
  replicasAck: boolean,
): RedisTopologyHealth {
  const health = ok(topology);
  for (const shard of shards) {
    if (!shard.masterUp) {
      health.mastersDown += 1;
      health.failoverInProgress = topology !== "single";
      health.problems.push(
        topology === "single"
          ? `Redis ${shard.master} does not answer`
          : `master ${shard.master} is down: a failover is in progress or no replica can take over`,
      );
    } else if (shard.replicasOnline === 0) {
      health.mastersWithoutReplica += 1;
      if (topology !== "single" || replicasAck) {
        health.problems.push(
          replicasAck
            ? `master ${shard.master} has no replica online: its limited requests answer 503 until one is back (LATCHKEY_REDIS_REPLICAS_ACK=1)`
            : `master ${shard.master} has no replica online: its death would lose its slots`,
        );
      }
    }
  }
  if (health.problems.length > 0) health.state = "degraded";
  return health;
}

/**
 * The cluster's gossip calls a replica online once it has any replication offset, even one that a
 * restart left behind: each master's own `INFO replication` says which replicas are in sync with it.
 */
async function withReplicasInSync(cluster: Cluster, shards: ShardState[]): Promise<ShardState[]> {
  const masters = new Map(
    cluster.nodes("master").map((node) => [`${node.options.host}:${node.options.port}`, node]),
  );
  return Promise.all(
    shards.map(async (shard) => {
      const node = masters.get(shard.master);
      if (!shard.masterUp || !node) return shard;
      const own = await readReplication(node).catch(() => undefined);
      return own?.masterUp ? { ...shard, replicasOnline: own.replicasOnline } : shard;
    }),
  );
}

/**
 * Reads the topology once a second: `CLUSTER SHARDS` on a cluster (every shard's master and
 * replicas, as the cluster sees them, then each master's own count of replicas in sync), `INFO
 * replication` of the master otherwise. The limiter asks
 * it, with LATCHKEY_REDIS_REPLICAS_ACK=1, whether a slot's master has a replica, so a request that
 * no replica could acknowledge is refused at once instead of after the deadline.
 */
export function monitorTopology(redis: RedisClient, options: TopologyMonitorOptions): TopologyMonitor {
  const { topology, replicasAck } = options;
  let health = ok(topology);
  let shards: ShardState[] = [];
  let checking: Promise<RedisTopologyHealth> | undefined;

  async function read(): Promise<RedisTopologyHealth> {
    try {
      shards = isCluster(redis)
        ? await withReplicasInSync(redis, await readClusterShards(redis))
        : [await readReplication(redis)];
      health = summarize(topology, shards, replicasAck);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      shards = [];
      health = {
        ...ok(topology),
        state: "degraded",
        mastersDown: 1,
        failoverInProgress: topology !== "single",
        problems: [
          topology === "single"
            ? `Redis does not answer (${reason})`
            : `the ${topology === "cluster" ? "cluster" : "master"} cannot be read (${reason}): a failover may be in progress`,
        ],
      };
    }
    return health;
  }

  const check = () => (checking ??= read().finally(() => (checking = undefined)));
  const timer = setInterval(() => void check(), options.intervalMs ?? 1000);
  timer.unref();
  void check();

  return {
    current: () => health,
    check,
    replicaMissing(key) {
      if (shards.length === 0) return undefined;
      const slot = isCluster(redis) ? calculateSlot(key) : 0;
      const shard = shards.find((s) => s.slots.some(([from, to]) => slot >= from && slot <= to));
      return shard && shard.masterUp && shard.replicasOnline === 0
        ? `master ${shard.master} has no replica online`
        : undefined;
    },
    close: () => clearInterval(timer),
  };
}
