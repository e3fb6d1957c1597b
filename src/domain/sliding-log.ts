/**
 * The exact sliding-log decision, free of storage: a request admitted at `t` holds a slot until
 * `t + window`, and at most `quota` slots are held at any time. Rejected requests take no slot.
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

/** Decides on one request at `now`. */
export function decideSlidingLog(
  held: HeldSlots,
  now: number,
  quota: number,
  windowMs: number,
): SlidingLogDecision {
  const oldest = held.oldest ?? now;
  if (held.count >= quota) {
    return { type: "deny", retryAfterMs: Math.max(1, oldest + windowMs - now) };
  }
  return { type: "allow", remaining: quota - held.count - 1, resetMs: oldest + windowMs - now };
}
