import type { SlidingLogDecision } from "../domain/sliding-log.js";
import type { StackedDecision, WindowLimit } from "../domain/stacked-log.js";

/** A stacked decision, or (with a record-version check) a refusal to decide on stale records. */
export type CheckedStackedDecision =
  | {
      type: "stale";
      /** The current version, when the limiter could read it. */
      records: ObservedRecordVersion | undefined;
    }
  | {
      type: "decided";
      decision: StackedDecision;
      /** Undefined when no version was asked for or could be read. */
      records: ObservedRecordVersion | undefined;
    };

/**
 * Where an organization's record version lives in Redis (src/cache/redis-record-versions.ts), and the
 * version the caller's cached records were read at, if it serves any.
 */
export interface RecordVersionCheck {
  /** Redis key of the organization's record version. */
  versionKey: string;
  /** Redis key of its count of writes in progress. */
  writingKey: string;
  /** Version the caller's cached record was read at; the answer is "stale" unless it is still current. */
  expected: number | undefined;
  /**
   * Another version to confirm with the decision: the one a cached service token was read at
   * (src/cache/version-premise.ts). "stale", counting nothing, unless it is current with no write in
   * progress; an answer that is not "stale" confirmed it.
   */
  premise?: { versionKey: string; writingKey: string; expected: number } | undefined;
}

/** The organization's record version as the limiter saw it, atomically with its decision. */
export interface ObservedRecordVersion {
  /** The version at the decision. */
  version: number;
  /** Whether a write of the organization's records was in progress then. */
  writing: boolean;
}

/** A decision that also read the organization's record version, or refused to decide on stale records. */
export type CheckedDecision =
  | {
      type: "stale";
      /** The current version, when the limiter could read it. */
      records: ObservedRecordVersion | undefined;
    }
  | {
      type: "decided";
      decision: SlidingLogDecision;
      /** Undefined when no version could be read (the limiter fell back to this node's memory). */
      records: ObservedRecordVersion | undefined;
    };

/**
 * Counts admissions in an exact sliding log per bucket. `consume` decides and, when it admits, records
 * the admission, as one atomic step: two callers can never both take the last slot.
 */
export interface RateLimiter {
  /** Admits or denies one request against `quota` admissions per `windowMs` for `bucket`. */
  consume(bucket: string, quota: number, windowMs: number): Promise<SlidingLogDecision>;
  /**
   * Admits a request of `cost` slots in `bucket` only when every window can hold them, and then takes
   * them in each, as one atomic step; a refusal takes nothing. Every window of a bucket counts the
   * same admissions (its log), each over its own length. With `check` (limiters shared across nodes),
   * the organization's record version is read in the same step, as `consumeChecked` does.
   */
  consumeWindows(
    bucket: string,
    windows: readonly WindowLimit[],
    cost: number,
    check?: RecordVersionCheck,
  ): Promise<CheckedStackedDecision>;
  /**
   * `consume`, plus the organization's record version read in the same atomic step; when `expected`
   * is given and is no longer current (or a write is in progress), answers "stale" and counts
   * nothing. Only limiters that share state across nodes (Redis) have it.
   */
  consumeChecked?(
    bucket: string,
    quota: number,
    windowMs: number,
    check: RecordVersionCheck,
  ): Promise<CheckedDecision>;
  /**
   * How many admissions of `bucket` are inside the window now, counting nothing: what the console
   * shows as "left now" (quota minus this).
   */
  held(bucket: string, windowMs: number): Promise<number>;
  /** Whether the limiter runs on its intended backend (false while a Redis limiter has fallen back). */
  readonly healthy: boolean;
  /** Stops timers and connections. */
  close(): Promise<void>;
}
