import type { ApiKeyRecord } from "../store/key-store.js";
import type { PremiseCheck } from "./version-premise.js";

/** A caller's key a cache holds, and the record version it was read at (for the limiter to confirm). */
export interface CachedCaller {
  key: ApiKeyRecord;
  version: number;
}

/**
 * The one thing the access decision knows of the caches: a caller's key that a cache holds but that
 * only Redis can confirm, in the same call that counts the request (the limiter's), or in a call of
 * its own (`confirm`) when the request counts against no group (README.md). Where the key
 * store's own reads are exact (SQLite), or nothing is cached, there is none.
 */
export interface CallerCache {
  /**
   * The decision on the key this cache holds for `apiId`: `step` decides on it, passing its version to
   * the call that confirms it, and answers undefined when it cannot (the version turned out stale, or
   * a refusal that the key in the database might not give). Then the entry is forgotten and `fresh`
   * decides on the key read from the database, as it does when no entry is held (or the limiter cannot
   * confirm versions now). The key is not to be trusted before that call confirmed its version.
   */
  decide<T>(
    apiId: string,
    step: (cached: CachedCaller) => Promise<T | undefined>,
    fresh: () => Promise<T>,
  ): Promise<T>;
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
