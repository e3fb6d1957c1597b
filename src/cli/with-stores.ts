import { loadConfig } from "../config.js";
import type { RedisClient } from "../redis/connection.js";
import { LatchkeyError } from "../domain/errors.js";
import { assertDatabaseExists, describeDatabase } from "../store/database-location.js";
import type { Stores } from "../store/open-database.js";
import { stderrLog } from "../warning-log.js";

/**
 * Opens every store on LATCHKEY_DATABASE_URL for one operator command and closes it afterwards. The
 * database modules are imported on use, so that `latchkey keys ...` does not load the drivers.
 *
 * On PostgreSQL with LATCHKEY_REDIS_URL, a change of a key record moves its organization's record
 * version in Redis like a server's does (src/cache/redis-record-versions.ts), so running nodes stop serving
 * their cached copies at once; Redis is connected on the first such change only, and a change it
 * cannot announce is refused. Without LATCHKEY_REDIS_URL the CLI must not change key records of a
 * database that nodes serve with Redis (docs/caching.md).
 *
 * A SQLite database that does not exist is not created (unless --create): run from the wrong folder,
 * the command would otherwise work on a new, empty one. Whatever is not found is reported with the
 * database it was looked for in.
 */
export async function withStores<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
  const { openStores } = await import("../store/open-database.js");
  const config = loadConfig();
  assertDatabaseExists(config.databaseUrl, config.databaseCreate === true);
  const stores = await openStores(config.databaseUrl);
  let redis: RedisClient | undefined;
  let connect: (() => Promise<RedisClient>) | undefined;
  const topology = config.redisTopology;
  if (topology && stores.dialect === "postgres") {
    const { openRedis, waitUntilReady } = await import("../redis/connection.js");
    connect = async () => {
      const connection = (redis ??= openRedis(topology, config.redisDeadlineMs));
      if (!(await waitUntilReady(connection, 3000)))
        throw new Error(`Redis at LATCHKEY_REDIS_URL does not answer`);
      return connection;
    };
  }
  const { keepCoherent } = await import("../cache/coherence.js");
  const { keys, organizations, plans, serviceTokens } = keepCoherent(stores, {
    redis: connect,
    prefix: config.redisPrefix,
    ...(config.redisReplicasAck ? { replicasAck: { deadlineMs: config.redisDeadlineMs } } : {}),
    cache: false,
    usable: () => false,
    now: Date.now,
    log: stderrLog,
  });
  try {
    return await work({ ...stores, keys, organizations, plans, serviceTokens });
  } catch (error) {
    if (error instanceof LatchkeyError && error.code === "not_found") {
      throw new LatchkeyError(
        "not_found",
        `${error.message} (database: ${describeDatabase(config.databaseUrl)})`,
      );
    }
    throw error;
  } finally {
    redis?.disconnect();
    await stores.close();
  }
}
