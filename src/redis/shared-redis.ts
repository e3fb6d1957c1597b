import type { Config } from "../config.js";
import { isCluster, openRedis, type RedisClient } from "./connection.js";
import { probeRedis } from "./probe.js";
import type { RedisTopology } from "./redis-url.js";
import { monitorTopology, type TopologyMonitor } from "./topology-health.js";

/** A node's one connection to Redis, whatever the topology, and what watches that topology. */
export interface SharedRedis {
  topology: RedisTopology;
  /** Shared by the limiter (which closes it) and the record versions. */
  connection: RedisClient;
  /** The topology's health, for /readyz, the metrics and replica acknowledgement. */
  monitor: TopologyMonitor;
  /**
   * Calls `forget` whenever the connection to a master is lost (a failover may follow, and the new
   * master may have lost the latest record versions with it): cached records must be read again.
   */
  onMasterLost(forget: () => void): void;
}

/**
 * Opens LATCHKEY_REDIS_URL for a server, after checking that a cluster or a Sentinel set answers
 * (and has replicas when LATCHKEY_REDIS_REPLICAS_ACK=1): a start that cannot work stops with one line
 * (src/redis/probe.ts). Undefined without LATCHKEY_REDIS_URL.
 */
export async function openSharedRedis(config: Config): Promise<SharedRedis | undefined> {
  const topology = config.redisTopology;
  if (!topology) return undefined;
  await probeRedis(topology, config.redisReplicasAck);
  const connection = openRedis(topology, config.redisDeadlineMs);
  const monitor = monitorTopology(connection, {
    topology: topology.kind,
    replicasAck: config.redisReplicasAck,
  });
  return {
    topology,
    connection,
    monitor,
    onMasterLost(forget) {
      // A cluster drops a node's connection for good when it dies (`-node`); a single server or a
      // Sentinel-managed master reconnects the same client (`close`).
      if (isCluster(connection)) connection.on("-node", forget);
      else connection.on("close", forget);
    },
  };
}
