import type { SlidingLogDecision } from "../domain/sliding-log.js";

/**
 * Counts admissions in an exact sliding log per bucket. `consume` decides and, when it admits, records
 * the admission, as one atomic step: two callers can never both take the last slot.
 */
export interface RateLimiter {
  /** Admits or denies one request against `quota` admissions per `windowMs` for `bucket`. */
  consume(bucket: string, quota: number, windowMs: number): Promise<SlidingLogDecision>;
  /** Whether the limiter runs on its intended backend (false while a Redis limiter has fallen back). */
  readonly healthy: boolean;
  /** Stops timers and connections. */
  close(): Promise<void>;
}
