import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { expect, onTestFinished, test } from "vitest";
import {
  BEGIN_WRITE_SCRIPT,
  END_WRITE_SCRIPT,
  recordVersionKeys,
} from "../../src/cache/redis-record-versions.js";
import { openRedis, waitUntilReady } from "../../src/redis/connection.js";
import { createRedisRateLimiter } from "../../src/ratelimit/redis-rate-limiter.js";
import { describeWithServices } from "../helpers/services.js";

/**
 * The record version the rate-limit script reads with each decision (src/cache/redis-record-versions.ts),
 * as a node and a writer see it in Redis.
 */
describeWithServices(["redis"], "record versions in the rate-limit script", ({ redis: url }) => {
  async function setup() {
    const redis = openRedis(url) as Redis;
    onTestFinished(() => redis.disconnect());
    if (!(await waitUntilReady(redis, 2000))) throw new Error(`Redis at ${url} does not answer`);
    const limiter = createRedisRateLimiter(redis);
    const keys = recordVersionKeys(`lk-test-${randomUUID()}`, "org_1");
    const bucket = `lk-test:${randomUUID()}`;
    const consume = (expected?: number) => limiter.consumeChecked(bucket, 10, 60_000, { ...keys, expected });
    const write = (script: string, redisClient: Redis = redis) =>
      redisClient.eval(script, 2, keys.versionKey, keys.writingKey, 60_000);
    return { redis, keys, bucket, consume, write };
  }

  test("a missing version starts from Redis' clock in microseconds and is read with every decision", async () => {
    const { consume } = await setup();
    const first = await consume();
    expect(first.type).toBe("decided");
    const version = first.records?.version ?? 0;
    expect(Math.abs(version / 1000 - Date.now())).toBeLessThan(60_000);
    expect((await consume()).records).toEqual({ version, writing: false });
  });

  test("a write moves the version before and after, and marks itself in progress meanwhile", async () => {
    const { consume, write, keys, redis } = await setup();
    const start = (await consume()).records?.version ?? 0;
    await write(BEGIN_WRITE_SCRIPT);
    const during = (await consume()).records;
    expect(during?.writing).toBe(true);
    expect(during?.version).toBeGreaterThan(start);
    await write(END_WRITE_SCRIPT);
    const after = (await consume()).records;
    expect(after).toEqual({ version: expect.any(Number), writing: false });
    expect(after?.version).toBeGreaterThan(during?.version ?? 0);
    expect(await redis.exists(keys.writingKey)).toBe(0);
  });

  test("an outdated expected version, or one during a write, is answered stale and takes no slot", async () => {
    const { consume, write, redis, bucket } = await setup();
    const current = (await consume()).records?.version ?? 0;
    expect(await redis.zcard(bucket)).toBe(1);
    expect((await consume(current)).type).toBe("decided");
    expect(await redis.zcard(bucket)).toBe(2);

    expect(await consume(current - 1)).toEqual({
      type: "stale",
      records: { version: current, writing: false },
    });
    await write(BEGIN_WRITE_SCRIPT);
    const during = await consume(current);
    expect(during.type).toBe("stale");
    expect(await redis.zcard(bucket)).toBe(2);
    await write(END_WRITE_SCRIPT);
    const now = (await consume()).records?.version ?? 0;
    expect((await consume(now)).type).toBe("decided");
    expect(await redis.zcard(bucket)).toBe(4);
  });

  test("after Redis loses the version, the next one is larger than any handed out before", async () => {
    const { consume, write, redis, keys } = await setup();
    await write(BEGIN_WRITE_SCRIPT);
    await write(END_WRITE_SCRIPT);
    const before = (await consume()).records?.version ?? 0;
    await redis.del(keys.versionKey);
    const after = (await consume()).records?.version ?? 0;
    expect(after).toBeGreaterThan(before);
    // Restored from an older snapshot: the next write still moves past everything seen.
    await redis.set(keys.versionKey, "5");
    await write(BEGIN_WRITE_SCRIPT);
    await write(END_WRITE_SCRIPT);
    expect((await consume()).records?.version).toBeGreaterThan(after);
  });
});
