import type { ApiKeyRecord } from "../store/key-store.js";
import type { PremiseCheck } from "./version-premise.js";

/**
 * The one thing the access decision knows of the caches: a caller's key that a cache holds but that
 * only Redis can confirm, in the same call that counts the request (the limiter's), or in a call of
 * its own (`confirm`) when the request counts against no group (README.md). Where the key
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
  /**
   * For a decision that counts against no group (so makes no limiter call): whether `orgId`'s records
   * are still at `version` with no write in progress, asked of Redis in one round trip. False when
   * they are not, or Redis cannot tell within 250 ms or while the limiter is on its fallback (then the
   * key is read from the database: a slow Redis never holds such a decision longer). Without a version
   * (a key just read from the database) it only observes the version, so the next read is cached.
   * With `premise` (a cached service token), it is confirmed in the same round trip: false unless it
   * holds too.
   */
  confirm(orgId: string, version: number | undefined, premise?: PremiseCheck): Promise<boolean>;
}
