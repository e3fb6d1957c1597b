import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { createMemoryRateLimiter } from "../../src/ratelimit/memory-rate-limiter.js";
import type { RateLimiter } from "../../src/ratelimit/rate-limiter.js";
import { openRedis, waitUntilReady } from "../../src/redis/connection.js";
import { createRedisRateLimiter } from "../../src/ratelimit/redis-rate-limiter.js";
import { fakeClock } from "../helpers/build-test-app.js";
import { startThrowawayCluster, type ThrowawayCluster } from "../helpers/redis-cluster.js";
import { startThrowawaySentinels, type ThrowawaySentinels } from "../helpers/redis-sentinel.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";

/** A limiter under test, and how time passes for it. */
interface Subject {
  limiter: RateLimiter;
  /** Lets `ms` pass: a fake clock moves, or real time (Redis keeps its own clock) is waited out. */
  wait(ms: number): Promise<void>;
  /** A window short enough to wait out, long enough that a loaded machine cannot blur it. */
  windowMs: number;
}

/** A bucket no other test (or earlier run) has used. */
const bucket = () => `lk-test:${randomUUID()}`;

/** What every RateLimiter backend promises (docs/rate-limits.md), run against memory and Redis. */
function limiterContract(open: () => Promise<Subject>): void {
  test("admits exactly the quota, counting the remaining slots down, then denies", async () => {
    const { limiter } = await open();
    const b = bucket();
    const remaining = [];
    for (let i = 0; i < 5; i++) {
      const decision = await limiter.consume(b, 5, 60_000);
      expect(decision.type).toBe("allow");
      if (decision.type === "allow") remaining.push(decision.remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const denied = await limiter.consume(b, 5, 60_000);
    expect(denied.type).toBe("deny");
    if (denied.type === "deny") expect(denied.retryAfterMs).toBeGreaterThan(0);
    if (denied.type === "deny") expect(denied.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  test("buckets are counted apart", async () => {
    const { limiter } = await open();
    const [a, b] = [bucket(), bucket()];
    expect((await limiter.consume(a, 1, 60_000)).type).toBe("allow");
    expect((await limiter.consume(a, 1, 60_000)).type).toBe("deny");
    expect((await limiter.consume(b, 1, 60_000)).type).toBe("allow");
  });

  test("concurrent callers get exactly the quota between them", async () => {
    const { limiter } = await open();
    const b = bucket();
    const decisions = await Promise.all(Array.from({ length: 60 }, () => limiter.consume(b, 20, 60_000)));
    expect(decisions.filter((d) => d.type === "allow")).toHaveLength(20);
  });

  test("the quota is read per call, so a raised allowance admits more at once", async () => {
    const { limiter } = await open();
    const b = bucket();
    await limiter.consume(b, 2, 60_000);
    await limiter.consume(b, 2, 60_000);
    expect((await limiter.consume(b, 2, 60_000)).type).toBe("deny");
    expect((await limiter.consume(b, 3, 60_000)).type).toBe("allow");
  });

  test("a slot frees one window after its admission, and a rejected request took none", async () => {
    const { limiter, wait, windowMs } = await open();
    const b = bucket();
    expect((await limiter.consume(b, 2, windowMs)).type).toBe("allow");
    await wait(windowMs / 2);
    expect((await limiter.consume(b, 2, windowMs)).type).toBe("allow");
    const denied = await limiter.consume(b, 2, windowMs);
    if (denied.type !== "deny") throw new Error("the third request should be denied");
    // Counted from the oldest admission, not from this request.
    expect(denied.retryAfterMs).toBeLessThan(windowMs);
    // Retry-After tells the truth: once it has passed, the first slot is free again (and only it,
    // because the denied request took none and the second admission holds for another half window).
    await wait(denied.retryAfterMs + 20);
    expect((await limiter.consume(b, 2, windowMs)).type).toBe("allow");
    expect((await limiter.consume(b, 2, windowMs)).type).toBe("deny");
  });

  test("held counts the admissions inside the window without taking a slot", async () => {
    const { limiter, wait, windowMs } = await open();
    const b = bucket();
    expect(await limiter.held(b, windowMs)).toBe(0);
    await limiter.consume(b, 3, windowMs);
    await limiter.consume(b, 3, windowMs);
    expect(await limiter.held(b, windowMs)).toBe(2);
    expect(await limiter.held(b, windowMs)).toBe(2);
    expect((await limiter.consume(b, 3, windowMs)).type).toBe("allow");
    await wait(windowMs + 20);
    expect(await limiter.held(b, windowMs)).toBe(0);
  });

  test("every window of a bucket counts its admissions over its own length; Retry-After waits for all", async () => {
    const { limiter, wait, windowMs } = await open();
    const b = bucket();
    const windows = [
      { quota: 2, windowMs },
      { quota: 3, windowMs: 3 * windowMs },
    ];
    const decide = async () => {
      const answer = await limiter.consumeWindows(b, windows, 1);
      if (answer.type !== "decided") throw new Error("no record-version check was asked for");
      return answer.decision;
    };
    expect((await decide()).type).toBe("allow");
    await wait(windowMs + 20);
    // The first admission has left the short window only: one slot held there after this one, two in the long.
    expect(await decide()).toMatchObject({ type: "allow", windows: [{ remaining: 1 }, { remaining: 1 }] });
    expect(await decide()).toMatchObject({ type: "allow", windows: [{ remaining: 0 }, { remaining: 0 }] });
    const denied = await decide();
    if (denied.type !== "deny") throw new Error("both windows are full");
    // The short window frees a slot within one window, the long one only when the first admission
    // leaves it, about two short windows from now: Retry-After is the later of the two.
    expect(denied.retryAfterMs).toBeGreaterThan(windowMs);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(2 * windowMs);
    expect(await limiter.held(b, windowMs)).toBe(2);
    expect(await limiter.held(b, 3 * windowMs)).toBe(3);
  });

  test("it reports itself healthy on its own backend", async () => {
    const { limiter } = await open();
    expect(limiter.healthy).toBe(true);
  });
}

describe("RateLimiter in memory", () => {
  limiterContract(async () => {
    const clock = fakeClock();
    const limiter = createMemoryRateLimiter(clock);
    onTestFinished(() => limiter.close());
    return { limiter, windowMs: 1000, wait: async (ms) => clock.advance(ms) };
  });
});

describeWithServices(["redis"], "RateLimiter on Redis", ({ redis: url }) => {
  limiterContract(async () => {
    const redis = openRedis(url) as Redis;
    if (!(await waitUntilReady(redis, 2000))) throw new Error(`Redis at ${url} does not answer`);
    // The Redis limiter itself, not the fallback wrapper: a Redis failure must fail these tests.
    const limiter = createRedisRateLimiter(redis);
    onTestFinished(() => limiter.close());
    // Redis keeps its own clock, so real time is waited out: a window of a second on an idle machine,
    // longer on a busy one, so that a stalled turn cannot let a slot expire between two checks.
    const windowMs = scaledMs(1000);
    return { limiter, windowMs, wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };
  });
});

/** A limiter over a cluster or a Sentinel set this file started, with or without replica acknowledgement. */
function topologySubject(url: () => string, replicasAck: boolean) {
  return async (): Promise<Subject> => {
    const redis = openRedis(url());
    if (!(await waitUntilReady(redis, scaledMs(5000)))) throw new Error(`${url()} does not answer`);
    const limiter = createRedisRateLimiter(redis, { tolerateFailover: true, replicasAck });
    onTestFinished(() => limiter.close());
    const windowMs = scaledMs(1000);
    return { limiter, windowMs, wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };
  };
}

describeWithServices(
  ["redisServer", "redisCli"],
  "RateLimiter on Redis Cluster",
  ({ redisServer, redisCli }) => {
    let cluster: ThrowawayCluster;
    beforeAll(async () => {
      cluster = await startThrowawayCluster(redisServer, redisCli);
    }, scaledMs(60_000));
    afterAll(() => cluster?.stop());
    // With replica acknowledgement: the cluster and sentinel suites of test/multinode/.
    describe("three masters, one replica each", () =>
      limiterContract(topologySubject(() => cluster.url, false)));
  },
);

describeWithServices(["redisServer"], "RateLimiter on a Sentinel-managed master", ({ redisServer }) => {
  let sentinels: ThrowawaySentinels;
  beforeAll(async () => {
    sentinels = await startThrowawaySentinels(redisServer);
  }, scaledMs(60_000));
  afterAll(() => sentinels?.stop());
  describe("admitting only what a replica holds", () =>
    limiterContract(topologySubject(() => sentinels.url, true)));
});
