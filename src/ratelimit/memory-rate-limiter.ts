import type { Clock } from "../domain/clock.js";
import { oneWindow } from "../domain/sliding-log.js";
import { decideStacked, type StackedDecision, type WindowHeld } from "../domain/stacked-log.js";
import { CompactLog } from "./compact-log.js";
import type { LimitWindow, RateLimiter } from "./rate-limiter.js";

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

  function logOf(key: string, windowMs: number): CompactLog {
    let log = buckets.get(key);
    if (!log || log.windowMs !== windowMs) {
      // A new window (configuration changed) starts a new log: admissions under the old one are moot.
      log = new CompactLog(windowMs);
      buckets.set(key, log);
    }
    return log;
  }

  /** Every window decided and, when all fit, taken, in one synchronous step. */
  function consumeNow(windows: readonly LimitWindow[], cost: number): StackedDecision {
    const now = clock.now();
    const logs: CompactLog[] = [];
    const held: WindowHeld[] = [];
    for (const { bucket, quota, windowMs } of windows) {
      const log = logOf(bucket, windowMs);
      log.expire(now);
      const over = log.held + cost - quota;
      logs.push(log);
      held.push({
        count: log.held,
        oldest: log.oldest(),
        blocking: over > 0 && cost <= quota ? log.timeOfIndex(over - 1) : undefined,
      });
    }
    const result = decideStacked(held, now, windows, cost);
    if (result.type === "allow") for (const log of logs) log.add(now, cost);
    return result;
  }

  return {
    healthy: true,
    get size() {
      return buckets.size;
    },
    sweep,
    consume: (bucket, quota, windowMs) =>
      Promise.resolve(oneWindow(consumeNow([{ bucket, quota, windowMs }], 1))),
    consumeWindows: (windows, cost) =>
      Promise.resolve({ type: "decided", decision: consumeNow(windows, cost), records: undefined }),
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
