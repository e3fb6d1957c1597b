import type { ErrorBody } from "./types.js";

/**
 * Codes the client itself assigns when there is no server error code to carry: the server was not
 * reached (`network_error`, status 0), it answered with something that is not latchkey's JSON
 * (`invalid_response`), a rotation step failed without a server error (`rotation_failed`), or a
 * create's replayed answer came without its secret (`secret_withheld`, {@link SecretWithheldError}).
 */
export type ClientErrorCode = "network_error" | "invalid_response" | "rotation_failed" | "secret_withheld";

/** What a {@link LatchkeyError} is made of. */
export interface LatchkeyErrorInit {
  /** HTTP status; 0 when no response was received. */
  status: number;
  /** The server's error code, or a {@link ClientErrorCode}. */
  code: string;
  /** The server's message, or the client's description of what failed. */
  message: string;
  /** The parsed error body, when the server sent one. */
  body?: ErrorBody | undefined;
  /** Seconds from the `Retry-After` header, when present. */
  retryAfterSeconds?: number | undefined;
  /** The server's `X-Request-Id`, to quote when asking an operator about this request. */
  requestId?: string | undefined;
  /** The underlying failure (a network error, or the step error of a rotation). */
  cause?: unknown;
}

/** Every failure the client reports is an instance of this class (or of a subclass). */
export class LatchkeyError extends Error {
  /** HTTP status; 0 when no response was received. */
  readonly status: number;
  /** The server's error code (`rate_limited`, `plan_limit_exceeded`, `not_found`, ...) or a client code. */
  readonly code: string;
  /** The parsed error body, when the server sent one. */
  readonly body: ErrorBody | undefined;
  /** Seconds from the `Retry-After` header, when present. */
  readonly retryAfterSeconds: number | undefined;
  /** The server's `X-Request-Id`, when present. */
  readonly requestId: string | undefined;

  constructor(init: LatchkeyErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "LatchkeyError";
    this.status = init.status;
    this.code = init.code;
    this.body = init.body;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.requestId = init.requestId;
  }
}

function asSentence(text: string): string {
  const trimmed = text.trim() || "unknown error";
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The steps of a rotation, in order; see `KeysResource.rotate`. */
export type RotationStep = "read" | "create" | "roll" | "store" | "verify" | "disable";

/**
 * A rotation that stopped before its end. The old key was not disabled by the client (it is still
 * enabled unless it already was disabled); `newKeyId` names the replacement to clean up, if one was made.
 */
export class KeyRotationError extends LatchkeyError {
  /** The step that failed. */
  readonly step: RotationStep;
  /** The key being replaced. */
  readonly oldKeyId: string;
  /** The replacement created before the failure, to disable or adopt; undefined when none was created. */
  readonly newKeyId: string | undefined;

  /**
   * `previousSecretExpiresAt`: for a rotation by roll that failed after the roll, when the old secret
   * stops working; the key then has a new secret, which the thrown error never carries.
   */
  constructor(
    step: RotationStep,
    oldKeyId: string,
    newKeyId: string | undefined,
    cause: unknown,
    previousSecretExpiresAt?: string,
  ) {
    const reason = asSentence(cause instanceof Error ? cause.message : String(cause));
    const cleanup =
      newKeyId === undefined
        ? "No new key was created."
        : `Clean up the new key ${newKeyId} (disable it), or finish by hand if it already serves traffic.`;
    const outcome =
      previousSecretExpiresAt === undefined
        ? `The old key was left as it was. ${cleanup}`
        : `The key was rolled: its old secret works until ${previousSecretExpiresAt}; roll it again to get a secret you can store.`;
    super({
      status: cause instanceof LatchkeyError ? cause.status : 0,
      code: cause instanceof LatchkeyError ? cause.code : "rotation_failed",
      message: `Rotation of ${oldKeyId} failed at step "${step}": ${reason} ${outcome}`,
      body: cause instanceof LatchkeyError ? cause.body : undefined,
      requestId: cause instanceof LatchkeyError ? cause.requestId : undefined,
      cause,
    });
    this.name = "KeyRotationError";
    this.step = step;
    this.oldKeyId = oldKeyId;
    this.newKeyId = newKeyId;
  }
}

/**
 * A create (or a rotation) that the server made, whose answer came as a replay without its secret: the
 * server could not keep the secret for a replay (it has neither `LATCHKEY_SECRET_PEPPER` nor
 * `LATCHKEY_SERVER_KEY_FILE`), so it answered `Idempotent-Secret-Withheld: true` with the secret
 * members empty. This happens when an earlier attempt of the same request created and its answer was
 * lost (the client's own retry), or when a caller repeats an `Idempotency-Key`. The record exists;
 * its secret is gone for good: roll the key (`keys.roll`), or rotate the webhook endpoint's secret, to
 * get a new one.
 */
export class SecretWithheldError<T = Record<string, unknown>> extends LatchkeyError {
  /** The answer as the server kept it: the created record, its secret members `""`. */
  readonly record: T;

  constructor(record: T, status: number, requestId: string | undefined) {
    super({
      status,
      code: "secret_withheld",
      message:
        "Created, but the server could not keep its secret for a replay (no LATCHKEY_SECRET_PEPPER or " +
        "LATCHKEY_SERVER_KEY_FILE), so this answer has none; roll the key (or rotate the webhook " +
        "endpoint's secret) to get a new secret. The record is in this error's `record`.",
      requestId,
    });
    this.name = "SecretWithheldError";
    this.record = record;
  }
}
