import { createHash } from "node:crypto";
import { LatchkeyError } from "../domain/errors.js";
import type { OrganizationStore } from "../store/organization-store.js";
import { isCluster, type RedisClient } from "../redis/connection.js";
import { organizationKeys, serviceTokenVersionKeys } from "../redis/key-names.js";
import { evalAcknowledged, evalStored, type StoredScript } from "../redis/replica-ack.js";
import type { KeyStore } from "../store/key-store.js";
import type { PlanStore } from "../store/plan-store.js";
import type { ServiceTokenStore } from "../store/service-token-store.js";
import type { WarningLog } from "../warning-log.js";

/**
 * The Redis side of record versions: one version and one count of writes in progress per
 * organization. Every write of a key record moves the version on twice (before its transaction and
 * after its commit); the rate-limit script reads both atomically with its decision
 * (src/ratelimit/redis-sliding-log.ts), which is how a node knows whether its cached records are
 * still exact without asking the database.
 */

/** The two Redis keys of an organization's record version. */
export interface RecordVersionKeys {
  /** The version: moves on (never back) with every write of the organization's key records. */
  versionKey: string;
  /** Writes in progress; absent when none. */
  writingKey: string;
}

/** In the organization's slot, beside its buckets (src/redis/key-names.ts). */
export function recordVersionKeys(prefix: string, orgId: string): RecordVersionKeys {
  const keys = organizationKeys(prefix, orgId);
  return { versionKey: keys.version, writingKey: keys.writing };
}

/** The deployment's service tokens: one version for all of them, in the slot of `{latchkey}`. */
export function serviceTokenRecordVersionKeys(prefix: string): RecordVersionKeys {
  const keys = serviceTokenVersionKeys(prefix);
  return { versionKey: keys.version, writingKey: keys.writing };
}

/** A version not moved for this long is forgotten; it restarts from Redis' clock, so it never repeats. */
const VERSION_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * Lua: the current version of KEYS[vk] as a decimal string, started from Redis `TIME` in microseconds
 * when missing. Versions are kept as strings: Lua would print a number this large in exponent form.
 */
export const CURRENT_VERSION_LUA = `
local function currentVersion(key)
  local version = redis.call('GET', key)
  if version then return version end
  local time = redis.call('TIME')
  version = time[1] .. string.format('%06d', tonumber(time[2]))
  redis.call('SET', key, version, 'PX', ${VERSION_TTL_MS})
  return version
end
`;

/**
 * Lua: moves the version on to the larger of (version + 1) and Redis' clock in microseconds, so that
 * after Redis loses its data, or is restored from an older snapshot, no version is ever handed out
 * twice (a node holding records read at a version would otherwise take a later write for none).
 */
const BUMP_VERSION_LUA = `
local function bumpVersion(key)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
  local current = tonumber(redis.call('GET', key) or '0')
  local version = string.format('%.0f', math.max(current + 1, now))
  redis.call('SET', key, version, 'PX', ${VERSION_TTL_MS})
  return version
end
`;

/**
 * Before a write's transaction: KEYS[1] version, KEYS[2] writing; ARGV[1] how long the mark may
 * outlive a writer that dies before `END_WRITE_SCRIPT` (longer than any transaction).
 */
export const BEGIN_WRITE_SCRIPT = `${BUMP_VERSION_LUA}
bumpVersion(KEYS[1])
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
`;

/** After the write's transaction, committed or not: same KEYS. */
export const END_WRITE_SCRIPT = `${BUMP_VERSION_LUA}
bumpVersion(KEYS[1])
if redis.call('DECR', KEYS[2]) <= 0 then redis.call('DEL', KEYS[2]) end
return 1
`;

/**
 * Reads record versions and their writes in progress, counting nothing: the check of a decision that
 * counts against no group (the rate-limit script reads the same atomically with its decision
 * otherwise). KEYS: pairs of (version, writing), an organization's and, with a service token cached,
 * the deployment's (one Redis or Sentinel: one script reads both). Returns per pair
 * { version, writes in progress }.
 */
export const READ_VERSION_SCRIPT = `${CURRENT_VERSION_LUA}
local out = {}
for i = 1, #KEYS, 2 do
  table.insert(out, currentVersion(KEYS[i]))
  table.insert(out, tonumber(redis.call('GET', KEYS[i + 1]) or '0'))
end
return out
`;

const READ_VERSION: StoredScript = {
  source: READ_VERSION_SCRIPT,
  sha: createHash("sha1").update(READ_VERSION_SCRIPT).digest("hex"),
};

/** A record version as read: the version, and whether a write was in progress. */
export interface SeenVersion {
  version: number;
  writing: boolean;
}

/** An organization's record version now: one round trip (the script by its SHA-1). */
export async function readRecordVersion(
  connection: RedisClient,
  keys: RecordVersionKeys,
): Promise<SeenVersion> {
  const [seen] = await readRecordVersions(connection, [keys]);
  return seen as SeenVersion;
}

/**
 * Several record versions now, in the order asked. One script call on one Redis or Sentinel; on a
 * cluster, where one script cannot touch two slots, one call per pair, sent together (one round trip
 * of latency, a command per slot).
 */
export async function readRecordVersions(
  connection: RedisClient,
  pairs: readonly RecordVersionKeys[],
): Promise<SeenVersion[]> {
  const read = async (some: readonly RecordVersionKeys[]) => {
    const names = some.flatMap((keys) => [keys.versionKey, keys.writingKey]);
    const reply = (await evalStored(connection, READ_VERSION, names, [])) as (string | number)[];
    const seen: SeenVersion[] = [];
    for (let i = 0; i < reply.length; i += 2) {
      seen.push({ version: Number(reply[i]), writing: (reply[i + 1] as number) > 0 });
    }
    return seen;
  };
  if (pairs.length < 2 || !isCluster(connection)) return read(pairs);
  return (await Promise.all(pairs.map((keys) => read([keys])))).flat();
}

/** How long a write-in-progress mark outlives a writer that died mid-write: longer than any transaction. */
const WRITING_MARK_MS = 60_000;

export interface VersionedWritesOptions {
  /** The Redis connection, ready (the CLI connects on its first write). */
  redis: () => Promise<RedisClient>;
  /**
   * LATCHKEY_REDIS_REPLICAS_ACK=1: a write starts only once a replica holds its first bump (`WAIT`),
   * so a master's death cannot lose the mark that keeps every node from caching the records it
   * changes; the deadline (LATCHKEY_REDIS_DEADLINE_MS) bounds the wait.
   */
  replicasAck?: { deadlineMs: number };
  /** LATCHKEY_REDIS_PREFIX, the namespace of the record versions. */
  prefix: string;
  /** Where a failed second bump is reported (the write itself has committed by then). */
  log: WarningLog;
}

const BEGIN_WRITE: StoredScript = {
  source: BEGIN_WRITE_SCRIPT,
  sha: createHash("sha1").update(BEGIN_WRITE_SCRIPT).digest("hex"),
};

/** The first bump of a write, acknowledged by a replica when asked to be. */
async function beginWrite(
  connection: RedisClient,
  keys: RecordVersionKeys,
  replicasAck: VersionedWritesOptions["replicasAck"],
): Promise<void> {
  const names = [keys.versionKey, keys.writingKey];
  if (!replicasAck) {
    await connection.eval(BEGIN_WRITE_SCRIPT, 2, ...names, WRITING_MARK_MS);
    return;
  }
  const { replicas } = await evalAcknowledged(
    connection,
    BEGIN_WRITE,
    names,
    [WRITING_MARK_MS],
    replicasAck.deadlineMs,
  );
  if (replicas < 1)
    throw new Error(`no replica acknowledged the record version within ${replicasAck.deadlineMs} ms`);
}

/**
 * The answer to a change Redis cannot announce. The client's library's words (ioredis': "Stream isn't
 * writeable ...") stay out of it: they go to the log, for the operator.
 */
function refused(error: unknown, subject: WriteSubject, log: WarningLog): LatchkeyError {
  log.warn(
    { ...subject.fields, reason: error instanceof Error ? error.message : String(error) },
    `record version: Redis unreachable, ${subject.change} was refused (503 service_unavailable)`,
  );
  const answer = new LatchkeyError(
    "service_unavailable",
    "The change was not made: Redis, which tells every latchkey node of it, cannot be reached right now. Try again shortly.",
  );
  answer.cause = error;
  return answer;
}

/**
 * Every change of a key record moves its organization's record version in Redis before its
 * transaction (and marks a write in progress) and again after it, committed or not, so that every
 * node's cached records of that organization stop being served (the scripts above).
 * A change whose first bump cannot reach Redis is refused, before anything is written: a write must
 * never go unseen. A failed second bump needs no refusal: the mark of the first keeps every node from
 * caching the organization's records until it expires.
 *
 * Inserts are not wrapped: a key that does not exist is never cached, so a new one cannot make a
 * cached record stale. `last_used_at` is not either (see VersionCachedKeysOptions.maxAgeMs).
 */
export function withVersionedWrites(keys: KeyStore, options: VersionedWritesOptions): KeyStore {
  const announced = versionedWrite(options);
  return {
    ...keys,
    changeKey: (orgId, id, decide, audit) => announced(orgId, () => keys.changeKey(orgId, id, decide, audit)),
  };
}

/**
 * The organization changes every node must see on the next request (a disable, an enable), announced
 * like a key change: its keys, connections and users are read with the organization's state.
 */
export function withVersionedOrganizationWrites(
  organizations: OrganizationStore,
  options: VersionedWritesOptions,
): OrganizationStore {
  const announced = versionedWrite(options);
  return {
    ...organizations,
    updateOrganization: (id, changes, at, audit) =>
      announced(id, () => organizations.updateOrganization(id, changes, at, audit)),
  };
}

/** A plan change moves the organization's version like a key change: plans are cached at it too. */
export function withVersionedPlanWrites(plans: PlanStore, options: VersionedWritesOptions): PlanStore {
  const announced = versionedWrite(options);
  return {
    ...plans,
    setPlan: (orgId, changes, audit) => announced(orgId, () => plans.setPlan(orgId, changes, audit)),
  };
}

/**
 * The service tokens' one version moves like an organization's on a revocation, so that every node's
 * cached tokens stop being served (version-cached-service-tokens.ts). A new token needs no bump: a
 * token not found is never cached.
 */
export function withVersionedServiceTokenWrites(
  tokens: ServiceTokenStore,
  options: VersionedWritesOptions,
): ServiceTokenStore {
  const announced = versionedWriteOf(options);
  const keys = serviceTokenRecordVersionKeys(options.prefix);
  const subject: WriteSubject = {
    fields: {},
    change: "a service token's revocation",
    records: "service tokens",
  };
  return {
    ...tokens,
    revokeServiceToken: (id, at, audit) =>
      announced(keys, subject, () => tokens.revokeServiceToken(id, at, audit)),
  };
}

/** What a write changes, for its log lines. */
interface WriteSubject {
  fields: Record<string, string>;
  /** "a key change", "a service token's revocation". */
  change: string;
  /** Whose records are read from the database while a failed end mark lasts. */
  records: string;
}

const organizationSubject = (orgId: string): WriteSubject => ({
  fields: { org_id: orgId },
  change: "a key change",
  records: "this organization's records",
});

/** Runs `work` between the two bumps of `orgId`'s record version (refused when the first fails). */
function versionedWrite(options: VersionedWritesOptions) {
  const announced = versionedWriteOf(options);
  return <T>(orgId: string, work: () => Promise<T>): Promise<T> =>
    announced(recordVersionKeys(options.prefix, orgId), organizationSubject(orgId), work);
}

/** Runs `work` between the two bumps of the version at `keys` (refused when the first fails). */
function versionedWriteOf(options: VersionedWritesOptions) {
  const { redis, log } = options;
  return async <T>(keys: RecordVersionKeys, subject: WriteSubject, work: () => Promise<T>): Promise<T> => {
    const { versionKey, writingKey } = keys;
    let connection: RedisClient;
    try {
      connection = await redis();
      await beginWrite(connection, keys, options.replicasAck);
    } catch (error) {
      throw refused(error, subject, log);
    }
    try {
      return await work();
    } finally {
      await connection.eval(END_WRITE_SCRIPT, 2, versionKey, writingKey).catch((error: unknown) => {
        log.warn(
          { ...subject.fields, error: error instanceof Error ? error.message : String(error) },
          `record version: could not mark the end of a write; ${subject.records} are read from the database until the mark expires`,
        );
      });
    }
  };
}
