import type { Clock } from "../domain/clock.js";
import { openRedis, type RedisClient, waitUntilReady } from "../redis/connection.js";
import type { RedisTopology } from "../redis/redis-url.js";
import {
  createFallbackRateLimiter,
  type LimiterLog,
  type LimiterOutagePolicy,
} from "./fallback-rate-limiter.js";
import { createMemoryRateLimiter } from "./memory-rate-limiter.js";
import type { RateLimiter } from "./rate-limiter.js";
import { createRedisRateLimiter } from "./redis-rate-limiter.js";

export interface RateLimiterChoice {
  /** Where limits shared by every node are kept (LATCHKEY_REDIS_URL); absent for this process's memory alone. */
  redis: RedisTopology | undefined;
  /** Time of the memory limiter (Redis uses its own `TIME`). */
  clock: Clock;
  /** Receives the Redis limiter's fallback and recovery notices. */
  log: LimiterLog;
  /** How long start-up waits for a first Redis connection before starting degraded. */
  connectWaitMs?: number;
  /** A connection to `redis` already opened (with `openRedis`) and shared; the limiter closes it. */
  connection?: RedisClient;
  /** Called when the limiter returns to Redis after a fallback. */
  onRecover?: () => void;
  /** What rate-limited requests get while Redis is away (LATCHKEY_LIMITER_OUTAGE); `local` by default. */
  outagePolicy?: LimiterOutagePolicy;
  /** How long one decision may retry a slow Redis (LATCHKEY_REDIS_DEADLINE_MS). */
  deadlineMs?: number;
  /** Silence after which Redis counts as gone (LATCHKEY_REDIS_OUTAGE_AFTER_MS). */
  outageAfterMs?: number;
  /** LATCHKEY_REDIS_REPLICAS_ACK=1: admit only what a replica holds (redis-rate-limiter.ts). */
  replicasAck?: boolean;
  /** Why a bucket's master has no replica to acknowledge now (src/redis/topology-health.ts). */
  replicaMissing?: (bucket: string) => string | undefined;
}

/** Memory alone, or Redis with the outage policy (this node's memory, or a 503) during an outage. */
export async function createRateLimiter(choice: RateLimiterChoice): Promise<RateLimiter> {
  const memory = createMemoryRateLimiter(choice.clock);
  if (!choice.redis) return memory;
  const redis = choice.connection ?? openRedis(choice.redis, choice.deadlineMs);
  // Waiting briefly here keeps the first requests of a normal start off the fallback, and a node
  // whose Redis is down at start still starts, degraded, instead of refusing to serve.
  const ready = await waitUntilReady(redis, choice.connectWaitMs ?? 1000);
  return createFallbackRateLimiter({
    primary: createRedisRateLimiter(redis, {
      deadlineMs: choice.deadlineMs,
      outageAfterMs: choice.outageAfterMs,
      // A cluster or Sentinel promotes a replica when a master dies: that is waited for, not an outage.
      tolerateFailover: choice.redis.kind !== "single",
      replicasAck: choice.replicasAck ?? false,
      ...(choice.replicaMissing ? { replicaMissing: choice.replicaMissing } : {}),
    }),
    fallback: memory,
    log: choice.log,
    policy: choice.outagePolicy,
    startDegraded: !ready,
    ...(choice.onRecover ? { onRecover: choice.onRecover } : {}),
  });
}
