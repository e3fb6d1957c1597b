import { Cluster, Redis } from "ioredis";
import { parseRedisUrl, type RedisTopology } from "./redis-url.js";

/** Default of LATCHKEY_REDIS_DEADLINE_MS: the longest a request waits for Redis. */
export const DEFAULT_REDIS_DEADLINE_MS = 1500;

/** A connection to latchkey's Redis, whichever the topology: ioredis' `Redis` (one server, Sentinel) or `Cluster`. */
export type RedisClient = Redis | Cluster;

/** Whether `redis` is a cluster connection (one connection per node, slots that move). */
export function isCluster(redis: RedisClient): redis is Cluster {
  return redis.isCluster;
}

// 50, 100, 200 ... ms, then once a second while Redis stays away.
const reconnectDelay = (attempt: number) => Math.min(25 * 2 ** attempt, 1000);

/**
 * Connects to Redis for rate-limit state, tuned so that an outage never makes a request wait: commands
 * fail at once while disconnected (no offline queue, no per-request retries) and a little after
 * `deadlineMs` when Redis hangs; the connection itself keeps retrying forever, so a node returns to
 * Redis by itself when it is back. The command timeout is the deadline, not less: an answer that
 * comes late (a busy CPU, a slow Redis) but in time is taken, never discarded because a shorter
 * timer fired first; the margin lets the limiter's own deadline, which reads the input waiting
 * first, decide.
 *
 * A cluster is found through its seeds and follows its slots as they move (MOVED, ASK, a failover);
 * a Sentinel-managed master is asked of the sentinels at every (re)connection, so a node follows a
 * promotion by itself. Either way the limiter, not ioredis, decides how long a decision waits
 * (src/ratelimit/redis-rate-limiter.ts).
 */
export function openRedis(
  where: string | RedisTopology,
  deadlineMs = DEFAULT_REDIS_DEADLINE_MS,
): RedisClient {
  const topology = typeof where === "string" ? parseRedisUrl(where) : where;
  const common = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: deadlineMs + 250,
    connectTimeout: 500,
  };
  let redis: RedisClient;
  switch (topology.kind) {
    case "single":
      redis = new Redis(topology.url, { ...common, retryStrategy: reconnectDelay });
      break;
    case "sentinel":
      redis = new Redis({
        ...common,
        sentinels: topology.sentinels,
        name: topology.masterName,
        ...credentials(topology),
        retryStrategy: reconnectDelay,
        sentinelRetryStrategy: reconnectDelay,
        sentinelCommandTimeout: 500,
        // A master demoted by a failover it survived answers writes with READONLY: reconnecting asks
        // the sentinels for the new one. (ioredis' failoverDetector, which subscribes to every
        // sentinel on each connection, left nodes unconnected for minutes on a loaded machine.)
        reconnectOnError: (error) => error.message.startsWith("READONLY"),
      });
      break;
    case "cluster":
      redis = new Cluster(topology.seeds, {
        enableOfflineQueue: false,
        clusterRetryStrategy: reconnectDelay,
        // Redirections and failovers are followed quickly; the limiter's deadline bounds the whole.
        retryDelayOnFailover: 100,
        retryDelayOnClusterDown: 100,
        retryDelayOnTryAgain: 50,
        slotsRefreshTimeout: 1000,
        slotsRefreshInterval: 2000,
        redisOptions: { ...common, ...credentials(topology) },
      });
      break;
  }
  // Connection errors surface through failed commands and the limiter's health checks; without a
  // listener ioredis would print every failed reconnect attempt to the console.
  redis.on("error", () => {});
  return redis;
}

function credentials(topology: { username?: string; password?: string }) {
  return {
    ...(topology.username ? { username: topology.username } : {}),
    ...(topology.password ? { password: topology.password } : {}),
  };
}

/** Resolves true once the connection is ready, or false after `timeoutMs`; never rejects. */
export function waitUntilReady(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  if (redis.status === "ready") return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on("ready", onReady);
  });
}

/** Closes the connection, politely when it is up. */
export async function closeRedis(redis: RedisClient): Promise<void> {
  if (redis.status === "ready") {
    await redis.quit().catch(() => redis.disconnect());
  } else {
    redis.disconnect();
  }
}
