import type { Redis } from "ioredis";
import { BEGIN_WRITE_SCRIPT, END_WRITE_SCRIPT, recordVersionKeys } from "../cache/redis-record-versions.js";
import { LatchkeyError } from "../domain/errors.js";
import type { WarningLog } from "../warning-log.js";
import type { KeyStore } from "./key-store.js";

/** How long a write-in-progress mark outlives a writer that died mid-write: longer than any transaction. */
const WRITING_MARK_MS = 60_000;

export interface VersionedWritesOptions {
  /** The Redis connection, ready (the CLI connects on its first write). */
  redis: () => Promise<Redis>;
  /** LATCHKEY_REDIS_PREFIX, the namespace of the record versions. */
  prefix: string;
  /** Where a failed second bump is reported (the write itself has committed by then). */
  log: WarningLog;
}

function refused(error: unknown): LatchkeyError {
  const cause = error instanceof Error ? error.message : String(error);
  return new LatchkeyError(
    "service_unavailable",
    `The change was not made: Redis, which tells every node of it, cannot be reached (${cause}). Try again shortly.`,
  );
}

/**
 * Every change of a key record moves its organization's record version in Redis before its
 * transaction (and marks a write in progress) and again after it, committed or not, so that every
 * node's cached records of that organization stop being served (src/cache/redis-record-versions.ts).
 * A change whose first bump cannot reach Redis is refused, before anything is written: a write must
 * never go unseen. A failed second bump needs no refusal: the mark of the first keeps every node from
 * caching the organization's records until it expires.
 *
 * Inserts are not wrapped: a key that does not exist is never cached, so a new one cannot make a
 * cached record stale. `last_used_at` is not either (see VersionCachedKeysOptions.maxAgeMs).
 */
export function withVersionedWrites(keys: KeyStore, options: VersionedWritesOptions): KeyStore {
  const { redis, prefix, log } = options;
  return {
    ...keys,
    async changeKey(orgId, id, decide, audit) {
      const { versionKey, writingKey } = recordVersionKeys(prefix, orgId);
      let connection: Redis;
      try {
        connection = await redis();
        await connection.eval(BEGIN_WRITE_SCRIPT, 2, versionKey, writingKey, WRITING_MARK_MS);
      } catch (error) {
        throw refused(error);
      }
      try {
        return await keys.changeKey(orgId, id, decide, audit);
      } finally {
        await connection.eval(END_WRITE_SCRIPT, 2, versionKey, writingKey).catch((error: unknown) => {
          log.warn(
            { org_id: orgId, error: error instanceof Error ? error.message : String(error) },
            "record version: could not mark the end of a write; this organization's records are read from the database until the mark expires",
          );
        });
      }
    },
  };
}
