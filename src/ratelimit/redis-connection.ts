import { Redis } from "ioredis";

/**
 * Longest a single Redis command attempt may take. The limiter sends a timed-out decision again
 * (under the same member) until its deadline, so this bounds one attempt, not a request's wait.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 400;

/**
 * Connects to Redis for rate-limit state, tuned so that an outage never makes a request wait: commands
 * fail at once while disconnected (no offline queue, no per-request retries) and after
 * `REDIS_COMMAND_TIMEOUT_MS` per attempt when Redis hangs; the connection itself keeps retrying forever, so a
 * node returns to Redis by itself when it is back.
 */
export function openRedis(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 500,
    // 50, 100, 200 ... ms, then once a second while Redis stays away.
    retryStrategy: (attempt) => Math.min(25 * 2 ** attempt, 1000),
  });
  // Connection errors surface through failed commands and the limiter's health checks; without a
  // listener ioredis would print every failed reconnect attempt to the console.
  redis.on("error", () => {});
  return redis;
}

/** Resolves true once the connection is ready, or false after `timeoutMs`; never rejects. */
export function waitUntilReady(redis: Redis, timeoutMs: number): Promise<boolean> {
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
