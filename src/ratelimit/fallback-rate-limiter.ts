import type { RateLimiter } from "./rate-limiter.js";
import type { CheckableRateLimiter } from "./redis-rate-limiter.js";

/** Where the limiter reports its transitions; the Fastify (pino) logger fits. */
export interface LimiterLog {
  /** One line per transition between the shared and the local limiter, never one per request. */
  warn(details: Record<string, unknown>, message: string): void;
}

export interface FallbackRateLimiterOptions {
  /** The shared limiter (Redis) used whenever it answers. */
  primary: CheckableRateLimiter;
  /** This node's own limiter, used while the primary is unreachable. */
  fallback: RateLimiter;
  /** Told once when the node falls back and once when it returns. */
  log: LimiterLog;
  /** How often the primary is pinged, to notice an outage without traffic and its end. */
  checkIntervalMs?: number;
  /** Whether to start on the fallback (the primary did not answer at start). */
  startDegraded?: boolean;
  /** Called when the node returns to the primary (record caches validated by it start afresh). */
  onRecover?: () => void;
}

/**
 * Uses the primary limiter and, when it fails or times out, answers from the fallback instead, so an
 * outage of Redis slows no request and rejects none. While degraded each node counts alone (an
 * organization may get up to one allowance per node); a background ping brings the node back to the
 * primary as soon as it answers. `healthy` is false while degraded, which /readyz reports.
 */
export function createFallbackRateLimiter(options: FallbackRateLimiterOptions): RateLimiter {
  const { primary, fallback, log } = options;
  let degraded = options.startDegraded ?? false;
  let checking = false;

  function degrade(error: unknown): void {
    if (degraded) return;
    degraded = true;
    log.warn(
      { err: error },
      "rate limiter: Redis unreachable, counting on this node only until it is back (limits are per node meanwhile)",
    );
  }

  function recover(): void {
    if (!degraded) return;
    degraded = false;
    options.onRecover?.();
    log.warn({}, "rate limiter: Redis is back, limits are shared by all nodes again");
  }

  async function check(): Promise<void> {
    if (checking) return;
    checking = true;
    try {
      await primary.ping();
      recover();
    } catch (error) {
      degrade(error);
    } finally {
      checking = false;
    }
  }

  const timer = setInterval(check, options.checkIntervalMs ?? 500);
  timer.unref();
  if (degraded) {
    log.warn({}, "rate limiter: Redis unreachable at start, counting on this node only until it answers");
  }

  return {
    get healthy() {
      return !degraded;
    },

    async consume(bucket, quota, windowMs) {
      if (!degraded) {
        try {
          return await primary.consume(bucket, quota, windowMs);
        } catch (error) {
          // Any failure, not only a lost connection: a request must not fail because Redis did.
          degrade(error);
        }
      }
      return fallback.consume(bucket, quota, windowMs);
    },

    async consumeChecked(bucket, quota, windowMs, check) {
      if (!degraded) {
        try {
          return await primary.consumeChecked(bucket, quota, windowMs, check);
        } catch (error) {
          degrade(error);
        }
      }
      // This node's memory cannot tell whether a cached record is current: the caller must read it
      // again (and count nothing here) before it is decided on.
      if (check.expected !== undefined) return { type: "stale", records: undefined };
      return {
        type: "decided",
        decision: await fallback.consume(bucket, quota, windowMs),
        records: undefined,
      };
    },

    async close() {
      clearInterval(timer);
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
