/** An OAuth error, answered as `{error, error_description}` (RFC 6749, section 5.2). */
export class OauthError extends Error {
  constructor(
    readonly error: string,
    description: string,
    readonly status = 400,
    /** Seconds a refused client should wait (`Retry-After`), for a 429. */
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
  }
}
