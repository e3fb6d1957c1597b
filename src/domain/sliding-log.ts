import type { StackedDecision } from "./stacked-log.js";

/**
 * The exact sliding log of one window: a request admitted at `t` holds a slot until `t + window`, and
 * at most `quota` slots are held at any time; rejected requests take no slot. The rule itself is
 * stacked-log.ts's (one window, cost 1); this is its answer in one window's terms.
 */
export type SlidingLogDecision =
  | {
      type: "allow";
      /** Slots still free after this request. */
      remaining: number;
      /** Milliseconds until the oldest held slot (possibly this request's own) frees. */
      resetMs: number;
    }
  | {
      type: "deny";
      /** Milliseconds until the oldest held slot frees, when a retry can be admitted. */
      retryAfterMs: number;
    };

/** What the decision needs to know of a log: how many slots are held and when the oldest was taken. */
export interface HeldSlots {
  /** Admissions still inside the window at `now`. */
  count: number;
  /** Time of the oldest of them; undefined when none are held. */
  oldest: number | undefined;
}

/** A decision over one window, in that window's terms. */
export function oneWindow(decision: StackedDecision): SlidingLogDecision {
  if (decision.type === "deny") return { type: "deny", retryAfterMs: decision.retryAfterMs };
  const window = decision.windows[0];
  return { type: "allow", remaining: window?.remaining ?? 0, resetMs: window?.resetMs ?? 0 };
}
