import { Redis } from "ioredis";
import { readClusterShards, readReplication } from "./topology-state.js";
import type { HostPort, RedisTopology } from "./redis-url.js";

const PROBE_TIMEOUT_MS = 2000;
const address = ({ host, port }: HostPort) => `${host.includes(":") ? `[${host}]` : host}:${port}`;
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** One plain connection to one server, no retries: the probe wants an answer or a reason, quickly. */
async function connectOnce(at: HostPort, auth: { username?: string; password?: string }): Promise<Redis> {
  const redis = new Redis({
    host: at.host,
    port: at.port,
    ...auth,
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    commandTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // ioredis rejects with "Connection is closed."; the socket's own error says why (ECONNREFUSED...).
  let cause: Error | undefined;
  redis.on("error", (error: Error) => (cause ??= error));
  try {
    await redis.connect();
    return redis;
  } catch (error) {
    redis.disconnect();
    throw cause ?? error;
  }
}

/** Asks each host in turn until one answers `ask`; throws the last reason when none does. */
async function firstAnswer<T>(
  hosts: HostPort[],
  auth: { username?: string; password?: string },
  ask: (redis: Redis, at: HostPort) => Promise<T>,
): Promise<T> {
  const reasons: string[] = [];
  for (const host of hosts) {
    let redis: Redis | undefined;
    try {
      redis = await connectOnce(host, auth);
      return await ask(redis, host);
    } catch (error) {
      if (error instanceof TopologyRefused) throw error;
      reasons.push(`${address(host)}: ${message(error)}`);
    } finally {
      redis?.disconnect();
    }
  }
  throw new Error(reasons.join("; "));
}

/** A topology that answered but cannot be used as configured: no other host would say otherwise. */
class TopologyRefused extends Error {}

const noReplica = (where: string) =>
  new TopologyRefused(
    `LATCHKEY_REDIS_REPLICAS_ACK=1 needs a replica for every master, but ${where} has none: add replicas or unset LATCHKEY_REDIS_REPLICAS_ACK`,
  );

/**
 * Checks at start that a cluster's seeds or a Sentinel set answer and know what LATCHKEY_REDIS_URL
 * names, and, with LATCHKEY_REDIS_REPLICAS_ACK=1, that every master has a replica to acknowledge
 * slots; otherwise throws one line naming the variable and what is wrong (the server does not start).
 * A single server that does not answer is not refused: the node starts degraded, as it always has
 * (docs/several-nodes.md); with replica acknowledgement, one that answers without a replica is.
 */
export async function probeRedis(topology: RedisTopology, replicasAck: boolean): Promise<void> {
  try {
    await probe(topology, replicasAck);
  } catch (error) {
    if (error instanceof TopologyRefused) throw new Error(error.message);
    throw new Error(`LATCHKEY_REDIS_URL: ${message(error)}`);
  }
}

async function probe(topology: RedisTopology, replicasAck: boolean): Promise<void> {
  switch (topology.kind) {
    case "single": {
      if (!replicasAck) return;
      const url = new URL(topology.url);
      const host = { host: url.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(url.port || 6379) };
      if (url.protocol === "rediss:") return; // The probe speaks plain TCP; the node itself checks later.
      const auth = {
        ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
        ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      };
      const shard = await connectOnce(host, auth)
        .then(async (redis) => {
          try {
            return await readReplication(redis);
          } finally {
            redis.disconnect();
          }
        })
        .catch(() => undefined);
      if (shard && shard.replicas === 0) throw noReplica(`Redis ${address(host)}`);
      return;
    }
    case "cluster": {
      const shards = await firstAnswer(topology.seeds, topology, async (redis, at) => {
        try {
          return await readClusterShards(redis, at.host);
        } catch (error) {
          throw new TopologyRefused(
            `LATCHKEY_REDIS_URL: ${address(at)} is not a usable cluster node (${message(error)}); use redis:// for a single server`,
          );
        }
      }).catch((error: unknown) => {
        if (error instanceof TopologyRefused) throw error;
        throw new Error(`no seed of the cluster answers (${message(error)})`);
      });
      if (shards.length === 0)
        throw new TopologyRefused("LATCHKEY_REDIS_URL: the cluster serves no slots yet");
      const bare = shards.find((shard) => shard.replicas === 0);
      if (replicasAck && bare) throw noReplica(`the cluster's master ${bare.master}`);
      return;
    }
    case "sentinel": {
      const name = topology.masterName;
      const replicas = await firstAnswer(topology.sentinels, {}, async (redis) => {
        const master = await redis.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name);
        if (master === null) throw new Error(`this sentinel monitors no master named '${name}'`);
        const listed = (await redis.call("SENTINEL", "REPLICAS", name)) as unknown[][];
        return listed.filter((fields) => {
          // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a field of Redis' reply: text
          const flags = String(fields[fields.indexOf("flags") + 1] ?? "");
          return !/s_down|o_down|disconnected/.test(flags);
        }).length;
      }).catch((error: unknown) => {
        throw new Error(`no sentinel answers for master '${name}' (${message(error)})`);
      });
      if (replicasAck && replicas === 0) throw noReplica(`the Sentinel master '${name}'`);
      return;
    }
  }
}
