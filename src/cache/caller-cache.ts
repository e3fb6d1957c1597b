import type { ApiKeyRecord } from "../store/key-store.js";

/**
 * The one thing the access decision knows of the caches: a caller's key that a cache holds but that
 * only the limiter can confirm, in the same call that counts the request (README.md). Where the key
 * store's own reads are exact (SQLite), or nothing is cached, there is none.
 */
export interface CallerCache {
  /**
   * The cached key of `apiId` and the record version it was read at, or undefined (none held, or the
   * limiter cannot confirm versions now). Never trust it before the limiter confirmed the version.
   */
  peek(apiId: string): { key: ApiKeyRecord; version: number } | undefined;
  /** Drops the entry of `apiId` (its version was stale, or it led to a refusal). */
  forget(apiId: string): void;
}
