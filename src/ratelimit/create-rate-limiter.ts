import type { Redis } from "ioredis";
import type { Clock } from "../domain/clock.js";
import {
  createFallbackRateLimiter,
  type LimiterLog,
  type LimiterOutagePolicy,
} from "./fallback-rate-limiter.js";
import { createMemoryRateLimiter } from "./memory-rate-limiter.js";
import type { RateLimiter } from "./rate-limiter.js";
import { openRedis, waitUntilReady } from "./redis-connection.js";
import { createRedisRateLimiter } from "./redis-rate-limiter.js";

export interface RateLimiterChoice {
  /** `redis://...` for limits shared by every node; absent for this process's memory alone. */
  redisUrl: string | undefined;
  /** Time of the memory limiter (Redis uses its own `TIME`). */
  clock: Clock;
  /** Receives the Redis limiter's fallback and recovery notices. */
  log: LimiterLog;
  /** How long start-up waits for a first Redis connection before starting degraded. */
  connectWaitMs?: number;
  /** A connection to `redisUrl` already opened (with `openRedis`) and shared; the limiter closes it. */
  redis?: Redis;
  /** Called when the limiter returns to Redis after a fallback. */
  onRecover?: () => void;
  /** What rate-limited requests get while Redis is away (LATCHKEY_LIMITER_OUTAGE); `local` by default. */
  outagePolicy?: LimiterOutagePolicy;
  /** How long one decision may retry a slow Redis (LATCHKEY_REDIS_DEADLINE_MS). */
  deadlineMs?: number;
  /** Silence after which Redis counts as gone (LATCHKEY_REDIS_OUTAGE_AFTER_MS). */
  outageAfterMs?: number;
}

/** Memory alone, or Redis with the outage policy (this node's memory, or a 503) during an outage. */
export async function createRateLimiter(choice: RateLimiterChoice): Promise<RateLimiter> {
  const memory = createMemoryRateLimiter(choice.clock);
  if (!choice.redisUrl) return memory;
  const redis = choice.redis ?? openRedis(choice.redisUrl, choice.deadlineMs);
  // Waiting briefly here keeps the first requests of a normal start off the fallback, and a node
  // whose Redis is down at start still starts, degraded, instead of refusing to serve.
  const ready = await waitUntilReady(redis, choice.connectWaitMs ?? 1000);
  return createFallbackRateLimiter({
    primary: createRedisRateLimiter(redis, {
      deadlineMs: choice.deadlineMs,
      outageAfterMs: choice.outageAfterMs,
    }),
    fallback: memory,
    log: choice.log,
    policy: choice.outagePolicy,
    startDegraded: !ready,
    ...(choice.onRecover ? { onRecover: choice.onRecover } : {}),
  });
}
