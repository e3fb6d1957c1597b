/**
 * The exact sliding-log decision over several windows at once (stacked limits, docs/rate-limits.md),
 * free of storage: a request of cost `c` is admitted only when every window can hold `c` more slots,
 * and then takes `c` slots in each; a refusal takes none. With one window and cost 1 it is the rule of
 * sliding-log.ts.
 */

/** One window a request counts in: at most `quota` slots held in any `windowMs`. */
export interface WindowLimit {
  /** Slots the window holds at most. */
  quota: number;
  /** The window's length in milliseconds. */
  windowMs: number;
}

/** What the decision needs to know of one window's log at `now`. */
export interface WindowHeld {
  /** Slots still inside the window. */
  count: number;
  /** Time of the oldest of them; undefined when none are held. */
  oldest: number | undefined;
  /**
   * When `count + cost` exceeds the quota: the time of the slot whose leaving lets the request fit
   * (the (count + cost - quota)-th oldest). Undefined when the request fits, or never can (cost > quota).
   */
  blocking: number | undefined;
}

/** One window's state after the decision, for the headers. */
export interface WindowOutcome {
  /** Slots still free (after this request, when admitted). */
  remaining: number;
  /** Milliseconds until the window's oldest held slot frees. */
  resetMs: number;
}

export type StackedDecision =
  | {
      type: "allow";
      /** Per window, in the order given. */
      windows: WindowOutcome[];
    }
  | {
      type: "deny";
      /** Milliseconds until every window can hold the request (>= 1). */
      retryAfterMs: number;
      /** Per window, in the order given: what is free now (the request took nothing). */
      windows: WindowOutcome[];
    };

/** Whether a window of `held` can take `cost` more slots. */
export function fits(held: WindowHeld, limit: WindowLimit, cost: number): boolean {
  return held.count + cost <= limit.quota;
}

/** Decides on one request of `cost` at `now` against every window (`held[i]` is `limits[i]`'s log). */
export function decideStacked(
  held: readonly WindowHeld[],
  now: number,
  limits: readonly WindowLimit[],
  cost: number,
): StackedDecision {
  let admit = true;
  let retryAt = now + 1;
  for (let i = 0; i < limits.length; i++) {
    const window = held[i] as WindowHeld;
    const limit = limits[i] as WindowLimit;
    if (fits(window, limit, cost)) continue;
    admit = false;
    // A cost above the quota never fits: the soonest honest answer is a whole window from now.
    const freesAt = window.blocking === undefined ? now + limit.windowMs : window.blocking + limit.windowMs;
    if (freesAt > retryAt) retryAt = freesAt;
  }
  const taken = admit ? cost : 0;
  const windows: WindowOutcome[] = [];
  for (let i = 0; i < limits.length; i++) {
    const window = held[i] as WindowHeld;
    const limit = limits[i] as WindowLimit;
    windows.push({
      remaining: Math.max(0, limit.quota - window.count - taken),
      resetMs: (window.oldest ?? now) + limit.windowMs - now,
    });
  }
  return admit ? { type: "allow", windows } : { type: "deny", retryAfterMs: retryAt - now, windows };
}

/** The window whose `remaining` is lowest (the most restrictive; the shortest on a tie). */
export function mostRestrictive(windows: readonly WindowOutcome[]): number {
  let index = 0;
  for (let i = 1; i < windows.length; i++) {
    if ((windows[i] as WindowOutcome).remaining < (windows[index] as WindowOutcome).remaining) index = i;
  }
  return index;
}
