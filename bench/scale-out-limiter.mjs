// The Redis limiter alone: decisions per second from one process over one connection, at several
// numbers of callers in flight, and proof of one round trip per decision from Redis' own command
// statistics (EVALSHA calls counted by Redis = decisions made; no EVAL, no other command).
import { randomBytes } from "node:crypto";
import { internalsOf } from "./lib/in-process.mjs";

/** Redis' call count of each command, from INFO commandstats. */
async function commandCalls(redis) {
  const info = await redis.info("commandstats");
  const calls = {};
  for (const match of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) calls[match[1]] = Number(match[2]);
  return calls;
}

function percentile(sorted, p) {
  return sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/**
 * Keeps `callers` decisions in flight for `seconds` against `buckets` buckets whose quota is never
 * reached (the admitting path, which writes; a deny only reads). Window 1 s keeps the sets small.
 */
async function run(limiter, { seconds, callers, buckets, prefix }) {
  const latenciesUs = [];
  let decisions = 0;
  const stopAt = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      let i = caller;
      while (performance.now() < stopAt) {
        const before = performance.now();
        const decision = await limiter.consume(`${prefix}:${i++ % buckets}`, 1e9, 1000);
        latenciesUs.push((performance.now() - before) * 1000);
        if (decision.type !== "allow") throw new Error("bench: a decision was denied");
        decisions++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latenciesUs.sort((a, b) => a - b);
  return {
    decisionsPerSecond: decisions / elapsed,
    decisions,
    p50Us: percentile(latenciesUs, 0.5),
    p99Us: percentile(latenciesUs, 0.99),
  };
}

export async function measureLimiters({ dist, redisUrl, seconds, callerCounts = [1, 16, 64] }) {
  const { openRedis, waitUntilReady, createRedisRateLimiter, createMemoryRateLimiter, systemClock } =
    await internalsOf(dist);

  const redis = openRedis(redisUrl);
  const stats = openRedis(redisUrl);
  if (!(await waitUntilReady(redis, 5000)) || !(await waitUntilReady(stats, 5000))) {
    throw new Error(`Redis at ${redisUrl} does not answer`);
  }
  const redisLimiter = createRedisRateLimiter(redis);
  const memoryLimiter = createMemoryRateLimiter(systemClock);
  const prefix = `lk-bench-limiter-${randomBytes(6).toString("hex")}`;
  const results = [];
  try {
    // Warm-up: loads the script into Redis (the one EVAL) and JIT-compiles the client path.
    await run(redisLimiter, { seconds: 1, callers: 16, buckets: 64, prefix });
    for (const callers of callerCounts) {
      const before = await commandCalls(stats);
      const figures = await run(redisLimiter, { seconds, callers, buckets: 64, prefix });
      const after = await commandCalls(stats);
      const delta = (name) => (after[name] ?? 0) - (before[name] ?? 0);
      // Both INFO calls are counted too; other clients of a shared Redis may add to the other counts.
      results.push({
        limiter: "redis",
        callers,
        ...figures,
        evalshaCalls: delta("evalsha"),
        evalCalls: delta("eval"),
        roundTripsPerDecision: delta("evalsha") / figures.decisions,
      });
    }
    for (const callers of [1, 64]) {
      results.push({
        limiter: "memory",
        callers,
        ...(await run(memoryLimiter, { seconds, callers, buckets: 64, prefix })),
      });
    }
  } finally {
    await redisLimiter.close();
    await memoryLimiter.close();
    stats.disconnect();
  }
  return results;
}
