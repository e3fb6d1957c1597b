import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { expect, onTestFinished, test, vi } from "vitest";
import { createManagementRateLimit } from "../../src/ratelimit/management-rate-limit.js";
import { openRedis, waitUntilReady } from "../../src/redis/connection.js";
import { createRedisRateLimiter } from "../../src/ratelimit/redis-rate-limiter.js";
import { recordVersionKeys } from "../../src/cache/redis-record-versions.js";
import {
  evalSlidingLog,
  evalStackedLog,
  slidingLogScriptSha,
} from "../../src/ratelimit/redis-sliding-log.js";
import { startThrowawayRedis } from "../helpers/redis-server.js";
import { describeWithServices } from "../helpers/services.js";

/** What the Redis limiter does inside Redis, beyond the limiter contract. */
describeWithServices(["redis", "redisServer"], "Redis limiter internals", ({ redis: url, redisServer }) => {
  async function connect(at = url): Promise<Redis> {
    const redis = openRedis(at) as Redis;
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
    expect(await redis.zcard(`${prefix}-staging:{org_1}:rl:api-key:write`)).toBe(20);
    expect(await redis.zcard(`${prefix}-production:{org_1}:rl:api-key:write`)).toBe(1);
  });

  test("a retried member is counted once: the same admission is answered again, nothing more is held", async () => {
    const redis = await connect();
    const key = `lk-test:${randomUUID()}`;
    const first = await evalSlidingLog(redis, key, 3, 60_000, "node-a:1");
    expect(first).toMatchObject({ admitted: true, replayed: false, held: { count: 0 } });
    await evalSlidingLog(redis, key, 3, 60_000, "node-b:1");
    for (let retry = 0; retry < 5; retry++) {
      const again = await evalSlidingLog(redis, key, 3, 60_000, "node-a:1");
      // Admitted as the first attempt was, with what was held before it (nothing), not a new slot.
      expect(again).toMatchObject({ admitted: true, replayed: true, held: { count: 0 } });
    }
    expect(await redis.zcard(key)).toBe(2);
    expect((await evalSlidingLog(redis, key, 3, 60_000, "node-b:2")).admitted).toBe(true);
    expect(await redis.zcard(key)).toBe(3);
  });

  test("a retry of an admitted call stays admitted when the bucket has filled since; a rejected call takes no slot on retry", async () => {
    const redis = await connect();
    const key = `lk-test:${randomUUID()}`;
    expect((await evalSlidingLog(redis, key, 2, 60_000, "m:1")).admitted).toBe(true);
    expect((await evalSlidingLog(redis, key, 2, 60_000, "m:2")).admitted).toBe(true);
    expect((await evalSlidingLog(redis, key, 2, 60_000, "m:3")).admitted).toBe(false);
    // The bucket is full: the admitted member is still admitted (once), the rejected one still not.
    expect(await evalSlidingLog(redis, key, 2, 60_000, "m:2")).toMatchObject({
      admitted: true,
      replayed: true,
      held: { count: 1 },
    });
    expect(await evalSlidingLog(redis, key, 2, 60_000, "m:3")).toMatchObject({
      admitted: false,
      replayed: false,
    });
    expect(await redis.zcard(key)).toBe(2);
    expect(await redis.zscore(key, "m:3")).toBeNull();
  });

  test("a retry of an admitted call is never turned into 'stale' by a record write made since", async () => {
    const redis = await connect();
    const key = `lk-test:${randomUUID()}`;
    const versions = recordVersionKeys(`lk-test-${randomUUID()}`, "org_1");
    const first = await evalSlidingLog(redis, key, 5, 60_000, "m:1", { ...versions, expected: undefined });
    const version = first.records?.version as number;
    const check = { ...versions, expected: version };
    expect((await evalSlidingLog(redis, key, 5, 60_000, "m:2", check)).admitted).toBe(true);
    // A write of the organization's records moves the version: new calls expecting the old one are
    // stale, but the retry of m:2 (admitted at the old version) is answered as it was decided.
    await redis.set(versions.versionKey, String(version + 1), "PX", 60_000);
    expect((await evalSlidingLog(redis, key, 5, 60_000, "m:3", check)).stale).toBe(true);
    expect(await evalSlidingLog(redis, key, 5, 60_000, "m:2", check)).toMatchObject({
      admitted: true,
      stale: false,
      replayed: true,
    });
    expect(await redis.zcard(key)).toBe(2);
  });

  test("the windows of a bucket share one log: each counts its own length of it, a decision writes its cost once", async () => {
    const redis = await connect();
    const key = `lk-test:${randomUUID()}`;
    const [seconds, micros] = await redis.time();
    // A slot taken 5 s ago: inside the minute, outside the second (as if that much time had passed).
    const fiveSecondsAgo = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - 5000;
    await redis.zadd(key, fiveSecondsAgo, "old:1");
    const windows = [
      { quota: 2, windowMs: 1000 },
      { quota: 3, windowMs: 60_000 },
    ];
    const first = await evalStackedLog(redis, key, windows, 2, "m:1");
    expect(first).toMatchObject({
      admitted: true,
      windows: [
        { count: 0, oldest: undefined },
        { count: 1, oldest: fiveSecondsAgo },
      ],
    });
    // One set holds every window's slots: the old one and the request's two, written once.
    expect(await redis.zrange(key, 0, -1)).toEqual(["old:1", "m:1", "m:1#2"]);
    expect(await redis.pttl(key)).toBeGreaterThan(1000);
    // A retry is answered as decided, with what each window held before it, and counts nothing.
    expect(await evalStackedLog(redis, key, windows, 2, "m:1")).toMatchObject({
      admitted: true,
      replayed: true,
      windows: [{ count: 0 }, { count: 1 }],
    });
    // Both windows are full now; each names the slot whose leaving lets one more in: in the second,
    // the request's own (its window no longer holds the old one), in the minute the old one.
    const refused = await evalStackedLog(redis, key, windows, 1, "m:2");
    expect(refused).toMatchObject({
      admitted: false,
      windows: [
        { count: 2, oldest: first.now, blocking: first.now },
        { count: 3, oldest: fiveSecondsAgo, blocking: fiveSecondsAgo },
      ],
    });
    expect(await redis.zcard(key)).toBe(3);
  });

  test("a window added to a group later counts the slots its log already holds", async () => {
    const redis = await connect();
    const limiter = createRedisRateLimiter(redis);
    const key = `lk-test:${randomUUID()}`;
    const minute = { quota: 5, windowMs: 60_000 };
    for (let i = 0; i < 2; i++)
      expect((await limiter.consume(key, minute.quota, minute.windowMs)).type).toBe("allow");
    const answer = await limiter.consumeWindows(key, [minute, { quota: 2, windowMs: 3_600_000 }], 1);
    expect(answer).toMatchObject({ type: "decided", decision: { type: "deny" } });
  });

  test("a call whose first attempt timed out is sent again under the same member and counted once", async () => {
    const own = await startThrowawayRedis(redisServer);
    onTestFinished(() => own.stop());
    const redis = await connect(own.url);
    const limiter = createRedisRateLimiter(redis, { deadlineMs: 60_000, outageAfterMs: 60_000 });
    const key = `lk-test:${randomUUID()}`;
    expect((await limiter.consume(key, 5, 60_000)).type).toBe("allow");
    own.pause();
    const decision = limiter.consume(key, 5, 60_000);
    // The first attempt goes unanswered and the same decision is sent again behind it; once Redis
    // runs again it executes both: the first admits, the second finds its member and adds nothing.
    await vi.waitFor(() => expect(redis.commandQueue.length).toBeGreaterThanOrEqual(2), { timeout: 5000 });
    own.resume();
    expect(await decision).toMatchObject({ type: "allow", remaining: 3 });
    expect(await redis.zcard(key)).toBe(2);
  });

  test("a decision refused at its deadline holds no slot, though Redis ran its attempts afterwards", async () => {
    const own = await startThrowawayRedis(redisServer);
    onTestFinished(() => own.stop());
    const redis = await connect(own.url);
    const limiter = createRedisRateLimiter(redis, { deadlineMs: 600, outageAfterMs: 60_000 });
    const key = `lk-test:${randomUUID()}`;
    expect((await limiter.consume(key, 5, 60_000)).type).toBe("allow");
    // A stalled Redis: the decision's attempts wait in its socket, the deadline passes (the request
    // is answered 503), and then Redis runs them all, the first admitting.
    own.pause();
    await expect(limiter.consume(key, 5, 60_000)).rejects.toThrow(/did not answer within 600 ms/);
    own.resume();
    // Whatever this connection sent before is run before this.
    await redis.ping();
    expect(await redis.zcard(key)).toBe(1);
  });

  test("a decision whose connection was lost holds no slot once Redis is reached again", async () => {
    const own = await startThrowawayRedis(redisServer);
    onTestFinished(() => own.stop());
    const redis = await connect(own.url);
    const limiter = createRedisRateLimiter(redis, { deadlineMs: 60_000, outageAfterMs: 60_000 });
    const key = `lk-test:${randomUUID()}`;
    expect((await limiter.consume(key, 5, 60_000)).type).toBe("allow");
    own.pause();
    const decision = limiter.consume(key, 5, 60_000);
    await vi.waitFor(() => expect(redis.commandQueue.length).toBeGreaterThanOrEqual(1), { timeout: 5000 });
    // The connection drops with the attempt unanswered; Redis had read it and runs it when thawed.
    redis.stream.destroy();
    await expect(decision).rejects.toThrow();
    own.resume();
    expect(await waitUntilReady(redis, 5000)).toBe(true);
    await vi.waitFor(async () => expect(await redis.zcard(key)).toBe(1), { timeout: 5000 });
  });
});
