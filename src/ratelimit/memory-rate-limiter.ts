import type { Clock } from "../domain/clock.js";
import { decideSlidingLog, firstLiveIndex } from "../domain/sliding-log.js";
import type { RateLimiter } from "./rate-limiter.js";

interface Bucket {
  /** Admission times, oldest first; entries before `head` have left the window. */
  admissions: number[];
  head: number;
  windowMs: number;
}

export interface MemoryRateLimiter extends RateLimiter {
  /** Drops buckets whose every admission has left its window; returns how many were dropped. */
  sweep(): number;
  /** Buckets currently held in memory. */
  readonly size: number;
}

/**
 * The exact sliding log of one process. Node runs `consume` to completion before the next call, so the
 * decision and the record are atomic without a lock. Idle buckets are swept so memory stays bounded by
 * the number of (organization, group) pairs active within one window.
 */
export function createMemoryRateLimiter(clock: Clock, sweepIntervalMs = 60_000): MemoryRateLimiter {
  const buckets = new Map<string, Bucket>();

  function sweep(): number {
    const now = clock.now();
    let dropped = 0;
    for (const [key, bucket] of buckets) {
      const newest = bucket.admissions[bucket.admissions.length - 1] ?? Number.NEGATIVE_INFINITY;
      if (newest + bucket.windowMs <= now) {
        buckets.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  const timer = setInterval(sweep, sweepIntervalMs);
  timer.unref();

  return {
    healthy: true,
    get size() {
      return buckets.size;
    },
    sweep,
    async consume(key, quota, windowMs) {
      const now = clock.now();
      let bucket = buckets.get(key);
      if (!bucket) {
        bucket = { admissions: [], head: 0, windowMs };
        buckets.set(key, bucket);
      }
      bucket.windowMs = windowMs;
      bucket.head = firstLiveIndex(bucket.admissions, bucket.head, now, windowMs);
      // Compact once the expired prefix dominates, so a busy bucket costs O(1) amortized per call.
      if (bucket.head > 64 && bucket.head * 2 > bucket.admissions.length) {
        bucket.admissions = bucket.admissions.slice(bucket.head);
        bucket.head = 0;
      }
      const held = { count: bucket.admissions.length - bucket.head, oldest: bucket.admissions[bucket.head] };
      const result = decideSlidingLog(held, now, quota, windowMs);
      if (result.type === "allow") bucket.admissions.push(now);
      return result;
    },
    async close() {
      clearInterval(timer);
    },
  };
}
