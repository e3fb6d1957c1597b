import type { Redis } from "ioredis";
import type { RedisClient } from "./connection.js";

/** One master, the slots it serves and the health of its replicas, as Redis reports them. */
export interface ShardState {
  /** host:port of the master. */
  master: string;
  /** Whether the master answers (for a cluster: the cluster sees it online). */
  masterUp: boolean;
  /** Replicas in sync and connected, able to acknowledge a write and to take over. */
  replicasOnline: number;
  /** Replicas not known to have failed (online, or still loading their first copy). */
  replicas: number;
  /** Inclusive slot ranges (a single server or a Sentinel master: all of them). */
  slots: [number, number][];
}

const ALL_SLOTS: [number, number][] = [[0, 16383]];

/** A flat RESP map (`[name, value, name, value, ...]`) as an object. */
function fields(flat: unknown): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  if (!Array.isArray(flat)) return record;
  for (let i = 0; i + 1 < flat.length; i += 2) record[String(flat[i])] = flat[i + 1];
  return record;
}

/**
 * Every shard that serves slots, from `CLUSTER SHARDS` (Redis 7) as the node asked sees it: its master
 * (the node whose role is master; `online` when the cluster reaches it) and its replicas online.
 * `askedHost` names a master that does not know its own address (a cluster of one).
 */
export async function readClusterShards(cluster: RedisClient, askedHost?: string): Promise<ShardState[]> {
  const reply = (await cluster.call("CLUSTER", "SHARDS")) as unknown[];
  const shards: ShardState[] = [];
  for (const entry of reply) {
    const shard = fields(entry);
    const bounds = (Array.isArray(shard.slots) ? shard.slots : []).map(Number);
    if (bounds.length === 0) continue;
    const slots: [number, number][] = [];
    for (let i = 0; i + 1 < bounds.length; i += 2) slots.push([bounds[i] as number, bounds[i + 1] as number]);
    const nodes = (Array.isArray(shard.nodes) ? shard.nodes : []).map(fields);
    const master = nodes.find((node) => node.role === "master");
    shards.push({
      // A node that never met another does not know its own address: it is the one asked.
      master: master
        ? // eslint-disable-next-line @typescript-eslint/no-base-to-string -- fields of Redis' reply: text
          `${String(master.endpoint || master.ip || askedHost)}:${String(master.port)}`
        : "(none)",
      masterUp: master?.health === "online",
      replicasOnline: nodes.filter((node) => node.role === "replica" && node.health === "online").length,
      replicas: nodes.filter((node) => node.role === "replica" && node.health !== "failed").length,
      slots,
    });
  }
  return shards;
}

/**
 * The one master of a single server or a Sentinel-managed set, from `INFO replication` on the
 * connection: a server that answers as a replica (a demoted master, during a promotion) is no master.
 */
export async function readReplication(redis: Redis): Promise<ShardState> {
  const address = redis.stream?.remoteAddress
    ? `${redis.stream.remoteAddress}:${String(redis.stream.remotePort)}`
    : `${redis.options.host ?? "?"}:${String(redis.options.port ?? "?")}`;
  if (redis.status !== "ready") {
    return { master: address, masterUp: false, replicasOnline: 0, replicas: 0, slots: ALL_SLOTS };
  }
  const info = await redis.info("replication");
  const role = /^role:(\w+)/m.exec(info)?.[1];
  const replicasOnline = (info.match(/^slave\d+:.*state=online/gm) ?? []).length;
  const replicas = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
  return { master: address, masterUp: role === "master", replicasOnline, replicas, slots: ALL_SLOTS };
}
