import { LatchkeyError } from "../domain/errors.js";
import type { RateLimiter } from "./rate-limiter.js";
import type { CheckableRateLimiter } from "./redis-rate-limiter.js";

/** Where the limiter reports its transitions; the Fastify (pino) logger fits. */
export interface LimiterLog {
  /** One line per transition between the shared and the local limiter, never one per request. */
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * What a node does while the shared limiter is away (LATCHKEY_LIMITER_OUTAGE): `local` counts on this
 * node alone (an organization may get one allowance per node), `refuse` answers every rate-limited
 * request `503 rate_limiter_unavailable`.
 */
export type LimiterOutagePolicy = "local" | "refuse";

export interface FallbackRateLimiterOptions {
  /** The shared limiter (Redis) used whenever it answers. */
  primary: CheckableRateLimiter;
  /** This node's own limiter, used while the primary is unreachable under the `local` policy. */
  fallback: RateLimiter;
  /** Told once when the node falls back and once when it returns. */
  log: LimiterLog;
  /** What requests get while the primary is away; `local` by default. */
  policy?: LimiterOutagePolicy;
  /** How often the primary is pinged, to notice an outage without traffic and its end. */
  checkIntervalMs?: number;
  /** Whether to start on the fallback (the primary did not answer at start). */
  startDegraded?: boolean;
  /** Called when the node returns to the primary (record caches validated by it start afresh). */
  onRecover?: () => void;
  now?: () => number;
}

/** How long a client refused under the `refuse` policy should wait (the node checks Redis twice a second). */
const REFUSED_RETRY_AFTER_SECONDS = 1;

/** The answer to a rate-limited request while the shared limiter is away, under the `refuse` policy. */
export function rateLimiterUnavailable(): LatchkeyError {
  return new LatchkeyError(
    "rate_limiter_unavailable",
    "The shared rate limiter cannot be reached, and this deployment refuses rate-limited requests " +
      "until it is back (LATCHKEY_LIMITER_OUTAGE=refuse). Try again shortly.",
    { retryAfterSeconds: REFUSED_RETRY_AFTER_SECONDS },
  );
}

/**
 * Uses the primary limiter and, while it is away, the outage policy: this node's own count, or a 503.
 * The node leaves the primary only when the primary says so (`outage`: a lost connection or a
 * sustained silence), never because one call was slow: the primary retries a slow call itself until
 * its deadline, and a call that fails without an outage is refused alone (503) while the node stays
 * on the primary. So the node's own count, the one exception to exact limits, is used only during a
 * declared outage under the `local` policy. A background ping notices an outage without traffic and
 * its end, and brings the node back as soon as the primary answers. `healthy` is false while
 * degraded, which /readyz and the metrics report.
 */
export function createFallbackRateLimiter(options: FallbackRateLimiterOptions): RateLimiter {
  const { primary, fallback, log } = options;
  const policy = options.policy ?? "local";
  const now = options.now ?? Date.now;
  let degraded = options.startDegraded ?? false;
  let checking = false;
  let failureLoggedAt = -Infinity;

  function degrade(reason: string): void {
    if (degraded) return;
    degraded = true;
    const meanwhile =
      policy === "local"
        ? "counting on this node only until it is back (limits are per node meanwhile)"
        : "refusing rate-limited requests with 503 until it is back";
    log.warn({ reason, policy }, `rate limiter: Redis unreachable, ${meanwhile}`);
  }

  function recover(): void {
    if (!degraded) return;
    degraded = false;
    options.onRecover?.();
    log.warn({}, "rate limiter: Redis is back, limits are shared by all nodes again");
  }

  /**
   * A call failed. When the primary is away the node leaves it, and the request gets the outage
   * policy's answer. Otherwise (a call past its deadline, an error reply) the node stays on the
   * primary and this request is refused with 503 whatever the policy: it cannot be counted exactly,
   * and a node counts alone only once it has declared the outage.
   */
  async function failed(error: unknown): Promise<void> {
    const outage = await primary.outage();
    if (outage !== undefined) return degrade(outage);
    if (now() - failureLoggedAt >= 60_000) {
      failureLoggedAt = now();
      log.warn(
        { err: error, policy },
        "rate limiter: a Redis call failed while Redis is still connected; that request was answered 503 rate_limiter_unavailable (logged at most once a minute)",
      );
    }
    // The primary's own refusal (no replica acknowledged the slot) says better what happened.
    throw error instanceof LatchkeyError ? error : rateLimiterUnavailable();
  }

  async function check(): Promise<void> {
    if (checking) return;
    checking = true;
    try {
      let answered = true;
      await primary.ping().catch(() => (answered = false));
      const outage = await primary.outage();
      if (outage !== undefined) degrade(outage);
      else if (answered) recover();
    } finally {
      checking = false;
    }
  }

  const timer = setInterval(() => void check(), options.checkIntervalMs ?? 500);
  timer.unref();
  if (degraded) {
    log.warn(
      { policy },
      "rate limiter: Redis unreachable at start, applying the outage policy until it answers",
    );
  }

  function outageAnswer(bucket: string, quota: number, windowMs: number) {
    if (policy === "refuse") throw rateLimiterUnavailable();
    return fallback.consume(bucket, quota, windowMs);
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
          await failed(error);
        }
      }
      return outageAnswer(bucket, quota, windowMs);
    },

    async held(bucket, windowMs) {
      if (!degraded) {
        try {
          return await primary.held(bucket, windowMs);
        } catch {
          // A display only: this node's own count stands in while Redis does not answer.
        }
      }
      return fallback.held(bucket, windowMs);
    },

    async consumeChecked(bucket, quota, windowMs, check) {
      if (!degraded) {
        try {
          return await primary.consumeChecked(bucket, quota, windowMs, check);
        } catch (error) {
          await failed(error);
        }
      }
      // Without the primary nothing can tell whether a cached record is current: the caller must read
      // it again (and count nothing here) before it is decided on, or refused.
      if (check.expected !== undefined || check.premise) return { type: "stale", records: undefined };
      return { type: "decided", decision: await outageAnswer(bucket, quota, windowMs), records: undefined };
    },

    async consumeWindows(bucket, windows, cost, check) {
      if (!degraded) {
        try {
          return await primary.consumeWindows(bucket, windows, cost, check);
        } catch (error) {
          await failed(error);
        }
      }
      // As consumeChecked: a cached record cannot be confirmed by this node's memory.
      if (check?.expected !== undefined || check?.premise) return { type: "stale", records: undefined };
      if (policy === "refuse") throw rateLimiterUnavailable();
      return fallback.consumeWindows(bucket, windows, cost);
    },

    async close() {
      clearInterval(timer);
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
