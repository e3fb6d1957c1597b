/** How a client that shares its organization with other workers spaces its requests. */
export interface SpacingOptions {
  /**
   * How many workers share the organization's allowance. This client keeps to `1/workers` of each
   * operation group's quota, by leaving at least `window / floor(quota / workers)` between its requests.
   */
  workers: number;
  /** Upper bound, in milliseconds, of the random delay added before each request. Default 250. */
  jitterMs?: number;
}

/** A group's allowance: `quota` requests in any `windowSeconds`. */
interface GroupPolicy {
  quota: number;
  windowSeconds: number;
}

/** The spec's defaults, used until a response's `RateLimit-Policy` tells the real figures. */
function defaultPolicy(group: string): GroupPolicy {
  return { quota: group.endsWith(":read") ? 100 : 20, windowSeconds: 60 };
}

/** Reads `"<group>";q=<n>;w=<n>` (docs/rate-limits.md); undefined when it is not in that form. */
export function parseRateLimitPolicy(header: string | null): ({ group: string } & GroupPolicy) | undefined {
  const match = header === null ? null : /^\s*"([^"]+)"\s*;(.*)$/.exec(header);
  if (!match?.[1] || match[2] === undefined) return undefined;
  const params = new Map(
    match[2].split(";").map((part) => {
      const [name = "", value = ""] = part.trim().split("=");
      return [name, Number(value)] as const;
    }),
  );
  const quota = params.get("q");
  const windowSeconds = params.get("w");
  if (!quota || !windowSeconds || quota < 1 || windowSeconds < 1) return undefined;
  return { group: match[1], quota, windowSeconds };
}

/** The clock and randomness spacing runs on; injectable so tests need no real waiting. */
export interface SpacingClock {
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
}

/**
 * Keeps one client to its share of each group's allowance. Slots are reserved synchronously, so
 * concurrent calls of one client queue behind each other instead of leaving together.
 */
export class RequestSpacer {
  readonly #workers: number;
  readonly #jitterMs: number;
  readonly #clock: SpacingClock;
  readonly #policies = new Map<string, GroupPolicy>();
  readonly #lastSlot = new Map<string, number>();

  constructor(options: SpacingOptions, clock: SpacingClock) {
    this.#workers = options.workers;
    this.#jitterMs = options.jitterMs ?? 250;
    this.#clock = clock;
  }

  /** Milliseconds this client leaves between two requests of `group`. */
  intervalMs(group: string): number {
    const policy = this.#policies.get(group) ?? defaultPolicy(group);
    const share = Math.max(1, Math.floor(policy.quota / this.#workers));
    return Math.ceil((policy.windowSeconds * 1000) / share);
  }

  /** Waits until this client may send its next request of `group`; `announce` is told how long first. */
  async waitTurn(group: string, announce?: (ms: number) => void): Promise<void> {
    const now = this.#clock.now();
    const last = this.#lastSlot.get(group);
    // The interval is taken now, not when the previous slot was booked: a response may have taught the
    // real policy since.
    const slot = last === undefined ? now : Math.max(now, last + this.intervalMs(group));
    this.#lastSlot.set(group, slot);
    const delay = slot - now + Math.floor(this.#clock.random() * this.#jitterMs);
    if (delay <= 0) return;
    announce?.(delay);
    await this.#clock.sleep(delay);
  }

  /** Learns a group's real quota and window from a response's `RateLimit-Policy` header. */
  learn(policyHeader: string | null): void {
    const policy = parseRateLimitPolicy(policyHeader);
    if (policy) this.#policies.set(policy.group, policy);
  }
}
