import type { LatchkeyError } from "./errors.js";

/**
 * Why the client is about to wait: `spacing` keeps this worker to its share of a group's allowance
 * (the `spacing` option); `retry_after` waits out a rate-limit rejection for the `Retry-After` the
 * server sent; `backoff` waits the spec's 60 seconds because the rejection had no usable `Retry-After`.
 */
export type WaitReason = "spacing" | "retry_after" | "backoff";

/** Told before each wait of the client, whatever its reason, e.g. to print "waiting 12 s". */
export interface WaitEvent {
  /** Why the client waits. */
  reason: WaitReason;
  /** How long it is about to wait, in milliseconds (random jitter included). */
  ms: number;
  /** The request that waits, e.g. `POST`. */
  method: string;
  /** Its path below the base URL, e.g. `/v1/api-keys`. */
  path: string;
  /** The operation group it counts against (`api-key:write`), when it has one. */
  group?: string;
  /** For `retry_after` and `backoff`: 1 before the first retry. */
  attempt?: number;
  /** For `retry_after` and `backoff`: the rejection being waited out. */
  error?: LatchkeyError;
}

/**
 * Where the client logs its waits at debug level. Called as `debug(details, message)`, the order of
 * pino and of Fastify's `request.log`; `console` fits as well.
 */
export interface ClientLogger {
  /** One line about a wait: `details` holds the reason, milliseconds, request and group. */
  debug(details: Record<string, unknown>, message: string): void;
}

/** One function that tells `onWait` and logs at debug, so every wait is reported the same way. */
export function waitReporter(
  onWait: ((wait: WaitEvent) => void) | undefined,
  logger: ClientLogger | undefined,
): (wait: WaitEvent) => void {
  return (wait) => {
    onWait?.(wait);
    if (!logger) return;
    const { error, ...details } = wait;
    const context = [wait.reason, wait.group, error?.code].filter(Boolean).join(", ");
    logger.debug(
      { ...details, ...(error ? { code: error.code, status: error.status } : {}) },
      `latchkey client: waiting ${wait.ms} ms before ${wait.method} ${wait.path} (${context})`,
    );
  };
}
