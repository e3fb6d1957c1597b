import type { ErrorBody } from "./types.js";

/** What the spec tells clients to wait when a rate-limit rejection has no usable `Retry-After`. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

/**
 * Reads `Retry-After` as delta-seconds or as an HTTP date (RFC 9110 allows both); undefined when absent
 * or unreadable, so the caller falls back to the spec's 60 seconds.
 */
export function parseRetryAfter(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/**
 * Whether a rejection is a management rate limit, the only failure worth waiting out. A plan-limit 429
 * (image credits used up) is not: waiting a minute does not restore credits, so it must never be retried.
 * latchkey says which with `code`; a body without a code (another implementation of the spec) counts
 * as a rate limit unless it names a plan limit.
 */
export function isRateLimitRejection(status: number, body: ErrorBody | undefined): boolean {
  if (status !== 429) return false;
  if (body?.code !== undefined) return body.code === "rate_limited";
  return !/plan/i.test(`${body?.error ?? ""} ${body?.message ?? ""}`);
}

/**
 * How long to wait before repeating a rate-limited request: `Retry-After` (else 60 s) plus a random
 * delay, so workers rejected together do not all come back in the same instant.
 */
export function retryDelayMs(
  retryAfterSeconds: number | undefined,
  jitterMs: number,
  random: () => number,
): number {
  const base = (retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000;
  return base + Math.floor(random() * jitterMs);
}

/**
 * Whether a failure of a request sent with an `Idempotency-Key` is worth repeating with the same key: a
 * 503 (the database or a node was away; a repeat gets the first response if the create happened) or
 * `idempotency_key_in_use` (the first attempt is still running).
 */
export function isTransientFailure(status: number, body: ErrorBody | undefined): boolean {
  return status === 503 || (status === 409 && body?.code === "idempotency_key_in_use");
}
