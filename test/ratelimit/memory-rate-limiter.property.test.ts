import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { createMemoryRateLimiter } from "../../src/ratelimit/memory-rate-limiter.js";
import { fakeClock } from "../helpers/build-test-app.js";

/** Replays a schedule of request times against one bucket and returns the times that were admitted. */
async function admittedTimes(offsets: number[], quota: number, windowMs: number): Promise<number[]> {
  const clock = fakeClock(0);
  const limiter = createMemoryRateLimiter(clock);
  const admitted: number[] = [];
  try {
    let now = 0;
    for (const offset of offsets) {
      now += offset;
      clock.set(now);
      const decision = await limiter.consume("org:group", quota, windowMs);
      if (decision.type === "allow") admitted.push(now);
    }
  } finally {
    await limiter.close();
  }
  return admitted;
}

const schedule = fc.record({
  quota: fc.integer({ min: 1, max: 12 }),
  windowMs: fc.integer({ min: 1, max: 5_000 }),
  // Gaps between consecutive requests; many zeros make bursts at one instant.
  offsets: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 })), { maxLength: 200 }),
});

describe("memory sliding log", () => {
  test("never admits more than q requests in any window of w", async () => {
    await fc.assert(
      fc.asyncProperty(schedule, async ({ quota, windowMs, offsets }) => {
        const admitted = await admittedTimes(offsets, quota, windowMs);
        // Any q + 1 consecutive admissions must span at least a whole window.
        for (let i = quota; i < admitted.length; i++) {
          expect((admitted[i] as number) - (admitted[i - quota] as number)).toBeGreaterThanOrEqual(windowMs);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("always admits a request when fewer than q admissions are held", async () => {
    await fc.assert(
      fc.asyncProperty(schedule, async ({ quota, windowMs, offsets }) => {
        const clock = fakeClock(0);
        const limiter = createMemoryRateLimiter(clock);
        const admitted: number[] = [];
        let now = 0;
        for (const offset of offsets) {
          now += offset;
          clock.set(now);
          const held = admitted.filter((t) => t + windowMs > now).length;
          const decision = await limiter.consume("bucket", quota, windowMs);
          expect(decision.type).toBe(held < quota ? "allow" : "deny");
          if (decision.type === "allow") {
            admitted.push(now);
            expect(decision.remaining).toBe(quota - held - 1);
          } else {
            // A denial says exactly when the oldest held slot frees.
            const oldest = admitted.find((t) => t + windowMs > now) as number;
            expect(decision.retryAfterMs).toBe(oldest + windowMs - now);
          }
        }
        await limiter.close();
      }),
      { numRuns: 300 },
    );
  });

  test("a burst of q just before a window edge and q just after admits exactly q in each window", async () => {
    const quota = 20;
    const windowMs = 60_000;
    // 2q requests at t = w - 1 ms, then 2q at t = w + (w - 1) ms: the second burst falls in a new window
    // only once the first burst's slots have left.
    const offsets = [
      windowMs - 1,
      ...Array(2 * quota - 1).fill(0),
      windowMs,
      ...Array(2 * quota - 1).fill(0),
    ];
    const admitted = await admittedTimes(offsets, quota, windowMs);
    expect(admitted.filter((t) => t === windowMs - 1)).toHaveLength(quota);
    expect(admitted.filter((t) => t === 2 * windowMs - 1)).toHaveLength(quota);
  });

  test("the burst after an edge is refused while the previous burst still holds its slots", async () => {
    const quota = 20;
    const windowMs = 60_000;
    // q at t = w - 1, then q at t = w + 1: only 2 ms apart, so the window still holds the first q.
    const offsets = [windowMs - 1, ...Array(quota - 1).fill(0), 2, ...Array(quota - 1).fill(0)];
    const admitted = await admittedTimes(offsets, quota, windowMs);
    expect(admitted).toHaveLength(quota);
  });
});

describe("memory limiter upkeep", () => {
  test("idle buckets are swept once every admission has left its window", async () => {
    const clock = fakeClock(0);
    const limiter = createMemoryRateLimiter(clock);
    for (let org = 0; org < 50; org++) await limiter.consume(`org${org}:api-key:read`, 100, 1_000);
    clock.set(500);
    await limiter.consume("org0:api-key:read", 100, 1_000);
    expect(limiter.size).toBe(50);
    clock.set(1_000);
    expect(limiter.sweep()).toBe(49);
    expect(limiter.size).toBe(1);
    clock.set(1_500);
    expect(limiter.sweep()).toBe(1);
    expect(limiter.size).toBe(0);
    await limiter.close();
  });

  test("buckets are independent", async () => {
    const clock = fakeClock(0);
    const limiter = createMemoryRateLimiter(clock);
    expect((await limiter.consume("a", 1, 1_000)).type).toBe("allow");
    expect((await limiter.consume("a", 1, 1_000)).type).toBe("deny");
    expect((await limiter.consume("b", 1, 1_000)).type).toBe("allow");
    await limiter.close();
  });
});
