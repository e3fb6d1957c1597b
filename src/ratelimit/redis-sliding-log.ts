import { createHash } from "node:crypto";
import { CURRENT_VERSION_LUA } from "../cache/redis-record-versions.js";
import type { RedisClient } from "../redis/connection.js";
import { evalAcknowledged, evalStored, type StoredScript } from "../redis/replica-ack.js";
import type { HeldSlots } from "../domain/sliding-log.js";
import type { ObservedRecordVersion, RecordVersionCheck } from "./rate-limiter.js";

/**
 * One decision of the exact sliding log, run atomically inside Redis so that callers on every node
 * share one log per bucket and one clock (Redis `TIME`, never a node's clock).
 *
 * KEYS[1]: the bucket's sorted set (member = one admission, score = its time in ms); optionally
 * KEYS[2] and KEYS[3]: the organization's record version and writes in progress
 * (src/cache/redis-record-versions.ts).
 * ARGV: quota, window in ms, a member unique to this request (the same on every retry of it), and
 * (with the version keys) the version the caller's cached record was read at, or "".
 * Returns { admitted 0|1 (-1: stale), slots held before this request, oldest held time or -1, now in
 * ms, record version or "", writes in progress, 1 when this was a retry of an admitted call else 0 }.
 *
 * Idempotent per member: a call whose member already holds a slot (an earlier attempt of the same
 * request was admitted, but its answer was lost or came too late) is answered "admitted" again and
 * counts nothing, so a node may retry a timed-out call without ever counting a request twice. That
 * check comes before the record-version check: an admission already made is never turned into
 * "stale" (the caller would then ask again, under a new member). A rejected or stale attempt wrote
 * nothing, so its retry is simply decided afresh: at most `quota` members are ever held, whatever
 * the number of retries.
 *
 * Only admitted requests are added, so a rejected request takes no slot; the key expires one window
 * after its newest admission, so idle buckets cost nothing. The admission rule (`count >= quota`
 * denies) is the one of domain/sliding-log.ts; it has to be repeated here to be atomic. A stale
 * answer (the expected version is not current, or a write is in progress) decides nothing and counts
 * nothing: the caller reads its records again and asks once more, without an expectation.
 */
export const SLIDING_LOG_SCRIPT = `${CURRENT_VERSION_LUA}
local key = KEYS[1]
local quota = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local version = ''
local writing = 0
if #KEYS == 3 then
  version = currentVersion(KEYS[2])
  writing = tonumber(redis.call('GET', KEYS[3]) or '0')
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local admittedAt = redis.call('ZSCORE', key, member)
if admittedAt then
  admittedAt = tonumber(admittedAt)
  -- Its rank: the slots held before it (members of one millisecond are ordered by name, as a set's are).
  local before = redis.call('ZRANK', key, member)
  local first = admittedAt
  if before > 0 then
    first = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
  end
  return {1, before, first, now, version, writing, 1}
end
if #KEYS == 3 and ARGV[4] ~= '' and (ARGV[4] ~= version or writing > 0) then
  return {-1, 0, -1, 0, version, writing, 0}
end
local count = redis.call('ZCARD', key)
local oldest = -1
if count > 0 then
  oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
end
if count >= quota then
  return {0, count, oldest, now, version, writing, 0}
end
redis.call('ZADD', key, now, member)
redis.call('PEXPIRE', key, window)
return {1, count, oldest, now, version, writing, 0}
`;

const SCRIPT_SHA = createHash("sha1").update(SLIDING_LOG_SCRIPT).digest("hex");
const SCRIPT: StoredScript = { sha: SCRIPT_SHA, source: SLIDING_LOG_SCRIPT };

/** What Redis decided for one request, in Redis time. */
export interface SlidingLogReply {
  /** Whether the request took a slot. */
  admitted: boolean;
  /** True when the caller's expected record version was not current: nothing was decided. */
  stale: boolean;
  /** The slots held just before this request. */
  held: HeldSlots;
  /** Redis time of the decision, epoch milliseconds. */
  now: number;
  /** The organization's record version, when its keys were given. */
  records: ObservedRecordVersion | undefined;
  /** True when the member already held a slot: a retry of an admitted call, counted once. */
  replayed: boolean;
  /**
   * With replica acknowledgement: how many replicas confirmed holding the decision's writes (WAIT);
   * undefined without it.
   */
  replicas?: number;
}

function parseReply(reply: unknown): SlidingLogReply {
  if (!Array.isArray(reply) || reply.length !== 7) {
    throw new Error(`Unexpected sliding-log reply from Redis: ${JSON.stringify(reply)}`);
  }
  const [admitted, count, oldest, now, version, writing, replayed] = reply as unknown[];
  if (![admitted, count, oldest, now, writing, replayed].every((n) => typeof n === "number")) {
    throw new Error(`Unexpected sliding-log reply from Redis: ${JSON.stringify(reply)}`);
  }
  return {
    admitted: admitted === 1,
    stale: admitted === -1,
    held: { count: count as number, oldest: (oldest as number) < 0 ? undefined : (oldest as number) },
    now: now as number,
    records:
      typeof version === "string" && version !== ""
        ? { version: Number(version), writing: (writing as number) > 0 }
        : undefined,
    replayed: replayed === 1,
  };
}

/**
 * Runs the script in one round trip by its SHA-1; only when Redis does not know it (first use, a
 * restart, `SCRIPT FLUSH`) is the source sent, which also caches it for the next call. With
 * `ackWaitMs` (LATCHKEY_REDIS_REPLICAS_ACK=1), `WAIT 1 <ackWaitMs>` follows on the same connection
 * and the reply says how many replicas hold the decision (src/redis/replica-ack.ts).
 */
export async function evalSlidingLog(
  redis: RedisClient,
  key: string,
  quota: number,
  windowMs: number,
  member: string,
  check?: RecordVersionCheck,
  ackWaitMs?: number,
): Promise<SlidingLogReply> {
  const keys = check ? [key, check.versionKey, check.writingKey] : [key];
  const args = check ? [quota, windowMs, member, check.expected ?? ""] : [quota, windowMs, member];
  if (ackWaitMs === undefined) return parseReply(await evalStored(redis, SCRIPT, keys, args));
  const { reply, replicas } = await evalAcknowledged(redis, SCRIPT, keys, args, ackWaitMs);
  return { ...parseReply(reply), replicas };
}

/** The SHA-1 Redis caches the script under (tests check the cache). */
export const slidingLogScriptSha = SCRIPT_SHA;
