import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, onTestFinished, test, vi } from "vitest";
import { systemClock } from "../../src/domain/clock.js";
import { LatchkeyError } from "../../src/domain/errors.js";
import { createRateLimiter, type RateLimiterChoice } from "../../src/ratelimit/create-rate-limiter.js";
import {
  createFallbackRateLimiter,
  type LimiterLog,
  type LimiterOutagePolicy,
} from "../../src/ratelimit/fallback-rate-limiter.js";
import { createMemoryRateLimiter } from "../../src/ratelimit/memory-rate-limiter.js";
import type { RateLimiter } from "../../src/ratelimit/rate-limiter.js";
import { openRedis } from "../../src/redis/connection.js";
import { parseRedisUrl } from "../../src/redis/redis-url.js";
import type { CheckableRateLimiter } from "../../src/ratelimit/redis-rate-limiter.js";
import { fakeClock } from "../helpers/build-test-app.js";
import { freePort } from "../helpers/free-port.js";
import { startThrowawayRedis, type ThrowawayRedis } from "../helpers/redis-server.js";
import { describeWithServices } from "../helpers/services.js";

function capturingLog(): LimiterLog & { lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (_details, message) => lines.push(message) };
}

/**
 * Far beyond any test's own timeout: a test that configures it and still sees its call answered
 * proves the answer did not come from waiting that long.
 */
const NEVER_MS = 600_000;

describe("fallback limiter (its switching rules, with a stand-in primary)", () => {
  /** `down`: calls fail and the primary reports an outage; `failing`: calls fail, no outage. */
  function standIn() {
    let state: "up" | "down" | "failing" = "up";
    const primary: CheckableRateLimiter & { calls: number } = {
      calls: 0,
      healthy: true,
      async consume() {
        primary.calls++;
        if (state !== "up") throw new Error("no answer");
        return { type: "allow", remaining: 99, resetMs: 1 };
      },
      async consumeChecked() {
        primary.calls++;
        if (state !== "up") throw new Error("no answer");
        const decision = { type: "allow", remaining: 99, resetMs: 1 } as const;
        return { type: "decided", decision, records: { version: 7, writing: false } };
      },
      async consumeWindows() {
        primary.calls++;
        if (state !== "up") throw new Error("no answer");
        const decision = { type: "allow", windows: [{ remaining: 99, resetMs: 1 }] } as const;
        return {
          type: "decided",
          decision: { ...decision, windows: [...decision.windows] },
          records: undefined,
        };
      },
      async held() {
        if (state !== "up") throw new Error("no answer");
        return 1;
      },
      async ping() {
        if (state !== "up") throw new Error("no answer");
      },
      async outage() {
        return state === "down" ? "connection lost" : undefined;
      },
      async close() {},
    };
    return { primary, set: (value: typeof state) => (state = value) };
  }

  function fallbackOf(primary: CheckableRateLimiter, policy?: LimiterOutagePolicy) {
    const log = capturingLog();
    let recovered = 0;
    const limiter = createFallbackRateLimiter({
      primary,
      fallback: createMemoryRateLimiter(fakeClock()),
      log,
      policy,
      checkIntervalMs: 10,
      onRecover: () => recovered++,
    });
    onTestFinished(() => limiter.close());
    return { limiter, log, recovered: () => recovered };
  }

  test("while degraded, a cached record cannot be confirmed: stale, nothing counted; recovery is announced", async () => {
    const { primary, set } = standIn();
    const { limiter, recovered } = fallbackOf(primary);
    const check = { versionKey: "v", writingKey: "w" };
    expect(await limiter.consumeChecked?.("b", 1, 60_000, { ...check, expected: 7 })).toMatchObject({
      type: "decided",
      records: { version: 7 },
    });
    set("down");
    expect(await limiter.consumeChecked?.("b", 1, 60_000, { ...check, expected: 7 })).toEqual({
      type: "stale",
      records: undefined,
    });
    // The fallback's single slot is still free: the stale answer took none.
    const decided = await limiter.consumeChecked?.("b", 1, 60_000, { ...check, expected: undefined });
    expect(decided).toEqual({
      type: "decided",
      decision: expect.objectContaining({ type: "allow" }),
      records: undefined,
    });
    expect(recovered()).toBe(0);
    set("up");
    await vi.waitFor(() => expect(limiter.healthy).toBe(true));
    expect(recovered()).toBe(1);
  });

  test("falls back when the primary reports an outage, logs it once, and returns when it answers again", async () => {
    const { primary, set } = standIn();
    const { limiter, log } = fallbackOf(primary);
    expect((await limiter.consume("b", 1, 60_000)).type).toBe("allow");
    set("down");
    // The first request after the outage meets it and is answered by the fallback; the fallback's
    // single slot then runs out: the node keeps limiting while degraded.
    expect((await limiter.consume("b", 1, 60_000)).type).toBe("allow");
    expect((await limiter.consume("b", 1, 60_000)).type).toBe("deny");
    expect(limiter.healthy).toBe(false);
    const callsWhileDegraded = primary.calls;
    for (let i = 0; i < 5; i++) await limiter.consume("b", 1, 60_000);
    expect(primary.calls).toBe(callsWhileDegraded);
    expect(log.lines).toEqual([expect.stringContaining("Redis unreachable, counting on this node only")]);
    set("up");
    await vi.waitFor(() => expect(limiter.healthy).toBe(true));
    expect((await limiter.consume("b", 1, 60_000)).type).toBe("allow");
    expect(log.lines).toHaveLength(2);
  });

  test("a call that fails without an outage is refused alone with 503, under `local` too: the node stays on the primary", async () => {
    const { primary, set } = standIn();
    const { limiter, log } = fallbackOf(primary);
    set("failing");
    // Counting it on this node alone could admit one request too many while the others count in Redis.
    await expect(limiter.consume("b", 1, 60_000)).rejects.toMatchObject({
      code: "rate_limiter_unavailable",
      retryAfterSeconds: 1,
    });
    expect(limiter.healthy).toBe(true);
    const calls = primary.calls;
    set("up");
    expect((await limiter.consume("b", 1, 60_000)).type).toBe("allow");
    expect(primary.calls).toBe(calls + 1);
    expect(log.lines).toEqual([
      expect.stringContaining("a Redis call failed while Redis is still connected"),
    ]);
  });

  test("under `refuse`, a degraded node refuses limited calls with 503 rate_limiter_unavailable and Retry-After", async () => {
    const { primary, set } = standIn();
    const { limiter, log } = fallbackOf(primary, "refuse");
    set("down");
    const refusal = await limiter.consume("b", 5, 60_000).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(LatchkeyError);
    expect(refusal).toMatchObject({ code: "rate_limiter_unavailable", status: 503, retryAfterSeconds: 1 });
    expect(limiter.healthy).toBe(false);
    expect(log.lines).toEqual([expect.stringContaining("refusing rate-limited requests with 503")]);
    // A cached record is still read again first (a disabled key must get its 401, not this 503).
    const check = { versionKey: "v", writingKey: "w" };
    expect(await limiter.consumeChecked?.("b", 5, 60_000, { ...check, expected: 7 })).toEqual({
      type: "stale",
      records: undefined,
    });
    await expect(
      limiter.consumeChecked?.("b", 5, 60_000, { ...check, expected: undefined }),
    ).rejects.toMatchObject({ code: "rate_limiter_unavailable" });
    set("up");
    await vi.waitFor(() => expect(limiter.healthy).toBe(true));
    expect((await limiter.consume("b", 5, 60_000)).type).toBe("allow");
  });
});

describeWithServices(["redisServer"], "Redis outage (a throwaway redis-server)", ({ redisServer }) => {
  let server: ThrowawayRedis;
  beforeAll(async () => {
    server = await startThrowawayRedis(redisServer);
  });
  afterAll(() => server?.stop());

  async function redisLimiter(
    url: string,
    log: LimiterLog,
    choice: Partial<RateLimiterChoice> = {},
  ): Promise<RateLimiter> {
    const limiter = await createRateLimiter({
      redis: parseRedisUrl(url),
      clock: systemClock,
      log,
      ...choice,
    });
    onTestFinished(() => limiter.close());
    return limiter;
  }

  async function bucketSize(url: string, bucket: string): Promise<number> {
    const client = new Redis(url, { lazyConnect: true });
    await client.connect();
    try {
      return await client.zcard(bucket);
    } finally {
      client.disconnect();
    }
  }

  test("when Redis dies, the node leaves it at once, keeps limiting on its own, and returns by itself", async () => {
    const log = capturingLog();
    // Retrying or waiting for silence would outlast this test: only the lost connection can explain
    // the fallback below.
    const limiter = await redisLimiter(server.url, log, { deadlineMs: NEVER_MS, outageAfterMs: NEVER_MS });
    expect(limiter.healthy).toBe(true);
    expect((await limiter.consume(`lk:${randomUUID()}`, 5, 60_000)).type).toBe("allow");

    await server.stop();
    const bucket = `lk:${randomUUID()}`;
    const decisions = [];
    for (let i = 0; i < 8; i++) decisions.push(await limiter.consume(bucket, 5, 60_000));
    decisions.push(
      ...(await Promise.all(Array.from({ length: 8 }, () => limiter.consume(bucket, 5, 60_000)))),
    );
    // Still limiting, on this node's own count.
    expect(decisions.filter((d) => d.type === "allow")).toHaveLength(5);
    expect(limiter.healthy).toBe(false);
    expect(log.lines).toEqual([expect.stringContaining("Redis unreachable")]);

    await server.start();
    await vi.waitFor(() => expect(limiter.healthy).toBe(true), { timeout: 5000, interval: 50 });
    expect(log.lines).toHaveLength(2);
    const after = `lk:${randomUUID()}`;
    await limiter.consume(after, 5, 60_000);
    expect(await bucketSize(server.url, after)).toBe(1);
  });

  test("a paused Redis is not an outage before its silence lasts: a call is refused at its deadline, the node stays", async () => {
    const log = capturingLog();
    const limiter = await redisLimiter(server.url, log, { deadlineMs: 300, outageAfterMs: NEVER_MS });
    const bucket = `lk:${randomUUID()}`;
    server.pause();
    try {
      // Answered while Redis is still paused: the call did not wait for Redis, only for its deadline.
      await expect(limiter.consume(bucket, 5, 60_000)).rejects.toMatchObject({
        code: "rate_limiter_unavailable",
      });
      expect(limiter.healthy).toBe(true);
    } finally {
      server.resume();
    }
    expect((await limiter.consume(bucket, 5, 60_000)).type).toBe("allow");
    expect(limiter.healthy).toBe(true);
    expect(log.lines).toEqual([
      expect.stringContaining("a Redis call failed while Redis is still connected"),
    ]);
  });

  test("a slow Redis is waited for: a call outlasting one attempt is answered by Redis, counted once", async () => {
    const log = capturingLog();
    const redis = openRedis(server.url) as Redis;
    const limiter = await redisLimiter(server.url, log, {
      connection: redis,
      deadlineMs: NEVER_MS,
      outageAfterMs: NEVER_MS,
    });
    const bucket = `lk:${randomUUID()}`;
    expect((await limiter.consume(bucket, 5, 60_000)).type).toBe("allow");
    const sentDecisions = () =>
      redis.commandQueue.toArray().filter((item) => item.command.name === "evalsha").length;
    server.pause();
    const decision = limiter.consume(bucket, 5, 60_000);
    try {
      // Resumed once the decision has been sent again behind its first attempt (ioredis keeps
      // unanswered commands in order): Redis then runs both, and the retry finds its member.
      await vi.waitFor(() => expect(sentDecisions()).toBeGreaterThanOrEqual(2), { timeout: 5000 });
    } finally {
      server.resume();
    }
    expect(await decision).toMatchObject({ type: "allow", remaining: 3 });
    expect(await bucketSize(server.url, bucket)).toBe(2);
    expect(limiter.healthy).toBe(true);
    expect(log.lines).toEqual([]);
  });

  test("when Redis stays silent past the outage time, the node leaves it, and returns when it answers", async () => {
    const log = capturingLog();
    const limiter = await redisLimiter(server.url, log, { deadlineMs: NEVER_MS, outageAfterMs: 500 });
    server.pause();
    try {
      // Answered while Redis is still paused, from this node's memory.
      expect((await limiter.consume(`lk:${randomUUID()}`, 5, 60_000)).type).toBe("allow");
      expect(limiter.healthy).toBe(false);
      expect(log.lines).toEqual([expect.stringContaining("Redis unreachable")]);
      // Later requests go straight to the fallback instead of each waiting again.
      expect((await limiter.consume(`lk:${randomUUID()}`, 5, 60_000)).type).toBe("allow");
    } finally {
      server.resume();
    }
    await vi.waitFor(() => expect(limiter.healthy).toBe(true), { timeout: 5000, interval: 50 });
    expect(log.lines).toHaveLength(2);
  });

  test("a node whose Redis is down at start serves degraded, then joins Redis when it comes up", async () => {
    const late = await freePort();
    const url = `redis://127.0.0.1:${late}`;
    const log = capturingLog();
    const limiter = await redisLimiter(url, log, { connectWaitMs: 200 });
    expect(limiter.healthy).toBe(false);
    expect(log.lines).toHaveLength(1);
    expect((await limiter.consume(`lk:${randomUUID()}`, 1, 60_000)).type).toBe("allow");
    const lateServer = await startThrowawayRedis(redisServer, late);
    onTestFinished(() => lateServer.stop());
    await vi.waitFor(() => expect(limiter.healthy).toBe(true), { timeout: 5000, interval: 50 });
    const bucket = `lk:${randomUUID()}`;
    await limiter.consume(bucket, 1, 60_000);
    expect(await bucketSize(url, bucket)).toBe(1);
  });
});
