/** The closed list of error codes; each has exactly one HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  missing_permission: 403,
  insufficient_authority: 403,
  not_found: 404,
  method_not_allowed: 405,
  key_quota_exceeded: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  plan_limit_exceeded: 429,
  invalid_service_token: 401,
  plan_restricted: 403,
  no_route: 404,
  resource_quota_exceeded: 409,
  organization_name_taken: 409,
  host_not_allowed: 403,
  internal: 500,
  service_unavailable: 503,
  // Answered before a route runs: by the HTTP server (slow or oversized requests) or while a node stops.
  request_timeout: 408,
  uri_too_long: 414,
  headers_too_large: 431,
  shutting_down: 503,
  database_unavailable: 503,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  rate_limiter_unavailable: 503,
  // The console: a state-changing form from another origin, or without its session's CSRF token.
  csrf_failed: 403,
  invalid_signature: 401,
  ip_not_allowed: 403,
  // The provisioning API (docs/provisioning.md).
  missing_scope: 403,
  organization_disabled: 403,
  external_id_taken: 409,
  // Webhooks (docs/webhooks.md).
  webhook_url_not_allowed: 400,
  webhook_endpoint_quota_exceeded: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One problem with one part of the input, as a JSON pointer into the request. */
export interface ValidationIssue {
  /** JSON pointer of the offending member, e.g. `/name` or `/query/count`. */
  path: string;
  /** What is wrong with it, for a person to read. */
  message: string;
}

/** Every failure the services can report. One handler renders it; nothing else builds error bodies. */
export class LatchkeyError extends Error {
  readonly code: ErrorCode;
  readonly validationErrors: ValidationIssue[] | undefined;
  /** Seconds to wait (`Retry-After`), on rate-limit rejections and refusals while the limiter is away. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    extra: { validationErrors?: ValidationIssue[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = "LatchkeyError";
    this.code = code;
    this.validationErrors = extra.validationErrors;
    this.retryAfterSeconds = extra.retryAfterSeconds;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function invalidRequest(message: string, path?: string): LatchkeyError {
  return new LatchkeyError(
    "invalid_request",
    message,
    path === undefined ? {} : { validationErrors: [{ path, message }] },
  );
}
