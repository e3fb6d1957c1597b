import type { Clock } from "../domain/clock.js";
import { decideSlidingLog } from "../domain/sliding-log.js";
import { CompactLog } from "./compact-log.js";
import type { RateLimiter } from "./rate-limiter.js";

export interface MemoryRateLimiter extends RateLimiter {
  /** Drops buckets whose every admission has left its window; returns how many were dropped. */
  sweep(): number;
  /** Buckets currently held in memory. */
  readonly size: number;
}

/**
 * The exact sliding log of one process. Node runs `consume` to completion before the next call, so the
 * decision and the record are atomic without a lock. Each bucket is a CompactLog (4 bytes per distinct
 * millisecond with admissions); idle buckets are swept, so memory stays bounded by the number of
 * (organization, group) pairs active within one window.
 */
export function createMemoryRateLimiter(clock: Clock, sweepIntervalMs = 60_000): MemoryRateLimiter {
  const buckets = new Map<string, CompactLog>();

  function sweep(): number {
    const now = clock.now();
    let dropped = 0;
    for (const [key, log] of buckets) {
      const newest = log.newest() ?? Number.NEGATIVE_INFINITY;
      if (newest + log.windowMs <= now) {
        buckets.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  const timer = setInterval(sweep, sweepIntervalMs);
  timer.unref();

  function consumeNow(key: string, quota: number, windowMs: number) {
    const now = clock.now();
    let log = buckets.get(key);
    if (!log || log.windowMs !== windowMs) {
      // A new window (configuration changed) starts a new log: admissions under the old one are moot.
      log = new CompactLog(windowMs);
      buckets.set(key, log);
    }
    log.expire(now);
    const result = decideSlidingLog({ count: log.held, oldest: log.oldest() }, now, quota, windowMs);
    if (result.type === "allow") log.add(now);
    return result;
  }

  return {
    healthy: true,
    get size() {
      return buckets.size;
    },
    sweep,
    consume: (key, quota, windowMs) => Promise.resolve(consumeNow(key, quota, windowMs)),
    held(key, windowMs) {
      const log = buckets.get(key);
      if (!log || log.windowMs !== windowMs) return Promise.resolve(0);
      log.expire(clock.now());
      return Promise.resolve(log.held);
    },
    async close() {
      clearInterval(timer);
    },
  };
}
