import type { RecordVersionKeys } from "./redis-record-versions.js";

/**
 * Something a request was let in on from a cache only Redis can confirm, apart from the caller's key:
 * the platform service's token (version-cached-service-tokens.ts). The access decision confirms it in
 * the Redis call it makes anyway (the limiter's script, or the cache's own `confirm`) before anything
 * is consumed, and reads it from the database instead when that call cannot (src/cache/README.md).
 */
export interface CachedPremise {
  /** Where its version lives in Redis and the version it was cached at. */
  check: PremiseCheck;
  /** Reads it from the database: throws (401 `invalid_service_token`) when it no longer holds. */
  recheck(): Promise<void>;
}

/** A version to confirm: current, with no write in progress, or the decision decides nothing. */
export interface PremiseCheck extends RecordVersionKeys {
  expected: number;
}
