import type { Clock } from "../domain/clock.js";
import { oneWindow } from "../domain/sliding-log.js";
import {
  decideStacked,
  type StackedDecision,
  type WindowHeld,
  type WindowLimit,
} from "../domain/stacked-log.js";
import { CompactLog } from "./compact-log.js";
import type { RateLimiter } from "./rate-limiter.js";

export interface MemoryRateLimiter extends RateLimiter {
  /** Drops logs whose every admission has left its window; returns how many buckets were dropped. */
  sweep(): number;
  /** Buckets currently held in memory. */
  readonly size: number;
}

/**
 * The exact sliding log of one process. Node runs `consume` to completion before the next call, so the
 * decision and the record are atomic without a lock. Each window of a bucket is a CompactLog (4 bytes
 * per distinct millisecond with admissions): a log of one length counts and finds its oldest slot
 * without a search, where one log for every window would walk its entries. Idle logs are swept, so
 * memory stays bounded by the number of (organization, group) pairs active within one window.
 */
export function createMemoryRateLimiter(clock: Clock, sweepIntervalMs = 60_000): MemoryRateLimiter {
  /** Each bucket's logs, one per window length asked of it. */
  const buckets = new Map<string, CompactLog[]>();

  function sweep(): number {
    const now = clock.now();
    let dropped = 0;
    for (const [key, logs] of buckets) {
      const live = logs.filter((log) => (log.newest() ?? Number.NEGATIVE_INFINITY) + log.windowMs > now);
      if (live.length === logs.length) continue;
      if (live.length === 0) {
        buckets.delete(key);
        dropped++;
      } else {
        buckets.set(key, live);
      }
    }
    return dropped;
  }

  const timer = setInterval(sweep, sweepIntervalMs);
  timer.unref();

  function logOf(bucket: string, windowMs: number): CompactLog {
    let logs = buckets.get(bucket);
    if (!logs) {
      logs = [];
      buckets.set(bucket, logs);
    }
    for (const log of logs) if (log.windowMs === windowMs) return log;
    // A window new to the bucket (a policy added or changed) starts its own log.
    const log = new CompactLog(windowMs);
    logs.push(log);
    return log;
  }

  /** Every window decided and, when all fit, taken, in one synchronous step. */
  function consumeNow(bucket: string, windows: readonly WindowLimit[], cost: number): StackedDecision {
    const now = clock.now();
    const logs: CompactLog[] = [];
    const held: WindowHeld[] = [];
    for (const { quota, windowMs } of windows) {
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
      Promise.resolve(oneWindow(consumeNow(bucket, [{ quota, windowMs }], 1))),
    consumeWindows: (bucket, windows, cost) =>
      Promise.resolve({ type: "decided", decision: consumeNow(bucket, windows, cost), records: undefined }),
    held(bucket, windowMs) {
      const log = buckets.get(bucket)?.find((candidate) => candidate.windowMs === windowMs);
      if (!log) return Promise.resolve(0);
      log.expire(clock.now());
      return Promise.resolve(log.held);
    },
    async close() {
      clearInterval(timer);
    },
  };
}
