import { Redis } from "ioredis";

/** Default of LATCHKEY_REDIS_DEADLINE_MS: the longest a request waits for Redis. */
export const DEFAULT_REDIS_DEADLINE_MS = 1500;

/**
 * Connects to Redis for rate-limit state, tuned so that an outage never makes a request wait: commands
 * fail at once while disconnected (no offline queue, no per-request retries) and a little after
 * `deadlineMs` when Redis hangs; the connection itself keeps retrying forever, so a node returns to
 * Redis by itself when it is back. The command timeout is the deadline, not less: an answer that
 * comes late (a busy CPU, a slow Redis) but in time is taken, never discarded because a shorter
 * timer fired first; the margin lets the limiter's own deadline, which reads the input waiting
 * first, decide.
 */
export function openRedis(url: string, deadlineMs = DEFAULT_REDIS_DEADLINE_MS): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: deadlineMs + 250,
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
