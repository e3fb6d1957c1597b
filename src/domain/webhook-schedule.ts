/**
 * When a failed delivery is tried again (docs/webhooks.md): the Standard Webhooks schedule, after the
 * first attempt. A delivery that fails the last one is failed for good; an endpoint whose deliveries
 * have failed without a success for five days is disabled.
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;

/** Attempts a delivery gets in all: the first and one per retry. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** How long an endpoint may fail without a success before it is disabled. */
export const FAILING_DISABLES_AFTER_MS = 5 * 24 * 3600 * 1000;

/** How long attempts and messages are kept. */
export const WEBHOOK_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** A receiver that has not answered within this is cut off (a failed attempt). */
export const DELIVERY_TIMEOUT_MS = 15_000;

/**
 * The time scale of the schedule: production waits the schedule as written (divisor 1); tests and
 * demos divide every delay and the five days by LATCHKEY_WEBHOOKS_TIME_DIVISOR, never the timeout.
 */
export interface WebhookTimeScale {
  divisor: number;
}

/**
 * Milliseconds until the next attempt after `attemptsMade` attempts failed, or null when none is left.
 */
export function retryDelayMs(attemptsMade: number, scale: WebhookTimeScale): number | null {
  const seconds = RETRY_DELAYS_SECONDS[attemptsMade - 1];
  return seconds === undefined ? null : Math.ceil((seconds * 1000) / scale.divisor);
}

/** Whether an endpoint failing since `failingSince` has failed long enough to be disabled at `now`. */
export function failedTooLong(failingSince: number, now: number, scale: WebhookTimeScale): boolean {
  return now - failingSince >= FAILING_DISABLES_AFTER_MS / scale.divisor;
}
