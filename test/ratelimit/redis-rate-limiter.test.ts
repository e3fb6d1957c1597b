import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { expect, onTestFinished, test } from "vitest";
import { createManagementRateLimit } from "../../src/ratelimit/management-rate-limit.js";
import { openRedis, waitUntilReady } from "../../src/ratelimit/redis-connection.js";
import { createRedisRateLimiter } from "../../src/ratelimit/redis-rate-limiter.js";
import { slidingLogScriptSha } from "../../src/ratelimit/redis-sliding-log.js";
import { startThrowawayRedis } from "../helpers/redis-server.js";
import { describeWithServices } from "../helpers/services.js";

/** What the Redis limiter does inside Redis, beyond the limiter contract. */
describeWithServices(["redis", "redisServer"], "Redis limiter internals", ({ redis: url, redisServer }) => {
  async function connect(at = url): Promise<Redis> {
    const redis = openRedis(at);
    onTestFinished(() => redis.disconnect());
    if (!(await waitUntilReady(redis, 2000))) throw new Error(`Redis at ${at} does not answer`);
    return redis;
  }

  test("stores only admitted requests, each as its own member, and lets the log expire", async () => {
    const redis = await connect();
    const limiter = createRedisRateLimiter(redis);
    const key = `lk-test:${randomUUID()}`;
    const decisions = await Promise.all(Array.from({ length: 30 }, () => limiter.consume(key, 20, 5_000)));
    expect(decisions.filter((d) => d.type === "allow")).toHaveLength(20);
    // Many admissions share a millisecond; distinct members keep every one of them in the set.
    expect(await redis.zcard(key)).toBe(20);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  test("works on a Redis that has forgotten its scripts, and caches the script again", async () => {
    // A Redis of its own: on the shared one, another suite's limiter may load the script again between
    // the FLUSH and the check that it is gone.
    const own = await startThrowawayRedis(redisServer);
    onTestFinished(() => own.stop());
    const redis = await connect(own.url);
    const limiter = createRedisRateLimiter(redis);
    await redis.script("FLUSH");
    expect(await redis.script("EXISTS", slidingLogScriptSha)).toEqual([0]);
    expect((await limiter.consume(`lk-test:${randomUUID()}`, 1, 5_000)).type).toBe("allow");
    expect(await redis.script("EXISTS", slidingLogScriptSha)).toEqual([1]);
  });

  test("two deployments sharing one Redis count apart under their own key prefix", async () => {
    const redis = await connect();
    const limiter = createRedisRateLimiter(redis);
    const prefix = `lk-test-${randomUUID()}`;
    const deployment = (name: string) =>
      createManagementRateLimit({
        limiter,
        loadLimits: async () => ({ maxKeys: null, quotas: {} }),
        windowSeconds: 60,
        namespace: `${prefix}-${name}`,
      });
    const [staging, production] = [deployment("staging"), deployment("production")];
    for (let i = 0; i < 20; i++) await staging.consume("org_1", "api-key:write");
    expect((await staging.consume("org_1", "api-key:write")).type).toBe("deny");
    expect((await production.consume("org_1", "api-key:write")).type).toBe("allow");
    expect(await redis.zcard(`${prefix}-staging:org_1:api-key:write`)).toBe(20);
    expect(await redis.zcard(`${prefix}-production:org_1:api-key:write`)).toBe(1);
  });
});
