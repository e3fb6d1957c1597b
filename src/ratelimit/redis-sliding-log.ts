import { createHash } from "node:crypto";
import { CURRENT_VERSION_LUA } from "../cache/redis-record-versions.js";
import type { RedisClient } from "../redis/connection.js";
import { evalAcknowledged, evalStored, type StoredScript } from "../redis/replica-ack.js";
import type { HeldSlots } from "../domain/sliding-log.js";
import type { WindowHeld, WindowLimit } from "../domain/stacked-log.js";
import type { ObservedRecordVersion, RecordVersionCheck } from "./rate-limiter.js";

/**
 * One decision of the exact sliding log over one or several windows (stacked limits), run atomically
 * inside Redis so that callers on every node share one log per bucket and one clock (Redis `TIME`,
 * never a node's clock).
 *
 * One log serves every window of a bucket: each window counts the same admissions, so the log is one
 * sorted set (member = one slot, score = its time in ms) kept for the longest window, and a window of
 * length w counts the slots after now - w. The log is ordered by time, so those are its last ones: the
 * slots a shorter window no longer holds are a prefix, counted by ZCOUNT in O(log n). A decision
 * trims once, adds its slots once and sets one expiry, whatever the number of windows; each further
 * window costs a count and a read of its oldest slot (bench/README.md, "Stacked windows").
 *
 * KEYS[1]: the log; optionally KEYS[2] and KEYS[3]: the organization's record version and writes in
 * progress (src/cache/redis-record-versions.ts). All of one organization's hash tag
 * (src/redis/key-names.ts), so the script touches one cluster slot. On one Redis or Sentinel only,
 * optionally KEYS[4] and KEYS[5]: the service tokens' version and writes in progress (tag
 * `{latchkey}`), confirmed like the organization's; on a cluster the limiter reads those in a call of
 * their own (redis-rate-limiter.ts).
 * ARGV: n, cost, a member unique to this request (the same on every retry of it), the version the
 * caller's cached record was read at or "", then each window's quota and length in ms, then (with
 * KEYS[4]) the version the service token was cached at.
 * Returns { admitted 0|1 (-1: stale), now in ms, record version or "", writes in progress, 1 when this
 * was a retry of an admitted call else 0, then per window: slots held before this request, oldest
 * held time or -1, and (refused) the time of the slot whose leaving lets the request fit, or -1 }.
 *
 * A request of cost c takes c slots: the member and `member#2` .. `member#c`, all at `now`. It is
 * admitted only when every window holds at most quota - c slots, and then written to the log, where
 * every window counts them; a refusal writes nothing, so it takes no slot in any window.
 *
 * Idempotent per member: a call whose member is already in the log (an earlier attempt of the same
 * request was admitted, but its answer was lost or came too late) is answered "admitted" again and
 * counts nothing, so a node may retry a timed-out call without ever counting a request twice. That
 * check comes before the record-version check: an admission already made is never turned into
 * "stale" (the caller would then ask again, under a new member). A rejected or stale attempt wrote
 * nothing, so its retry is simply decided afresh.
 *
 * The log expires one longest window after its newest admission, so idle buckets cost nothing. A
 * window added to a bucket later sees only what the log still holds (the old longest window). The
 * admission rule is domain/stacked-log.ts's; it has to be repeated here to be atomic, and the caller
 * checks that both agree. A stale answer (the expected version is not current, or a write is in
 * progress) decides nothing and counts nothing: the caller reads its records again and asks once more.
 */
export const SLIDING_LOG_SCRIPT = `${CURRENT_VERSION_LUA}
local n = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local member = ARGV[3]
local log = KEYS[1]
local version = ''
local writing = 0
if #KEYS >= 3 then
  version = currentVersion(KEYS[2])
  writing = tonumber(redis.call('GET', KEYS[3]) or '0')
end
local premiseFails = false
if #KEYS == 5 then
  premiseFails = currentVersion(KEYS[4]) ~= ARGV[5 + 2 * n]
    or tonumber(redis.call('GET', KEYS[5]) or '0') > 0
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local longest = 0
for i = 1, n do
  local window = tonumber(ARGV[4 + 2 * i])
  if window > longest then longest = window end
end
redis.call('ZREMRANGEBYSCORE', log, '-inf', now - longest)
local held = redis.call('ZCARD', log)
-- How many of the log's slots (its oldest) a window of this length no longer holds.
local function outside(window)
  if window == longest then return 0 end
  return redis.call('ZCOUNT', log, '-inf', now - window)
end
local function timeAt(rank)
  return tonumber(redis.call('ZRANGE', log, rank, rank, 'WITHSCORES')[2])
end
local out = {1, now, version, writing, 0}
if redis.call('ZSCORE', log, member) then
  out[5] = 1
  local rank = redis.call('ZRANK', log, member)
  for i = 1, n do
    local skipped = outside(tonumber(ARGV[4 + 2 * i]))
    local count = held - skipped
    -- Its rank in the window: the slots held before it (slots of one millisecond are ordered by name).
    local before = count
    if rank >= skipped then before = rank - skipped end
    table.insert(out, before)
    table.insert(out, count > 0 and timeAt(skipped) or -1)
    table.insert(out, -1)
  end
  return out
end
if premiseFails or (#KEYS >= 3 and ARGV[4] ~= '' and (ARGV[4] ~= version or writing > 0)) then
  return {-1, 0, version, writing, 0}
end
for i = 1, n do
  local quota = tonumber(ARGV[3 + 2 * i])
  local skipped = outside(tonumber(ARGV[4 + 2 * i]))
  local count = held - skipped
  local blocking = -1
  if count + cost > quota then
    out[1] = 0
    if cost <= quota then blocking = timeAt(skipped + count + cost - quota - 1) end
  end
  table.insert(out, count)
  table.insert(out, count > 0 and timeAt(skipped) or -1)
  table.insert(out, blocking)
end
if out[1] == 0 then return out end
local slots = {now, member}
for k = 2, cost do
  table.insert(slots, now)
  table.insert(slots, member .. '#' .. k)
end
redis.call('ZADD', log, unpack(slots))
redis.call('PEXPIRE', log, longest)
return out
`;

const SCRIPT_SHA = createHash("sha1").update(SLIDING_LOG_SCRIPT).digest("hex");
const SCRIPT: StoredScript = { sha: SCRIPT_SHA, source: SLIDING_LOG_SCRIPT };

/** What Redis decided for one request over its windows, in Redis time. */
export interface StackedLogReply {
  /** Whether the request took its slots. */
  admitted: boolean;
  /** True when the caller's expected record version was not current: nothing was decided. */
  stale: boolean;
  /** Each window's log just before this request. */
  windows: WindowHeld[];
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

function unexpected(reply: unknown): Error {
  return new Error(`Unexpected sliding-log reply from Redis: ${JSON.stringify(reply)}`);
}

function parseReply(reply: unknown, n: number): StackedLogReply {
  if (!Array.isArray(reply)) throw unexpected(reply);
  const [admitted, now, version, writing, replayed] = reply as unknown[];
  const stale = admitted === -1;
  if (reply.length !== (stale ? 5 : 5 + 3 * n)) throw unexpected(reply);
  if (![admitted, now, writing, replayed].every((x) => typeof x === "number")) throw unexpected(reply);
  const windows: WindowHeld[] = [];
  for (let i = 5; i < reply.length; i += 3) {
    const [count, oldest, blocking] = reply.slice(i, i + 3) as number[];
    if (typeof count !== "number" || typeof oldest !== "number" || typeof blocking !== "number")
      throw unexpected(reply);
    windows.push({
      count,
      oldest: oldest < 0 ? undefined : oldest,
      blocking: blocking < 0 ? undefined : blocking,
    });
  }
  return {
    admitted: admitted === 1,
    stale,
    windows,
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
export async function evalStackedLog(
  redis: RedisClient,
  bucket: string,
  windows: readonly WindowLimit[],
  cost: number,
  member: string,
  check?: RecordVersionCheck,
  ackWaitMs?: number,
): Promise<StackedLogReply> {
  const keys = [bucket];
  const args: (string | number)[] = [windows.length, cost, member, check?.expected ?? ""];
  for (const window of windows) args.push(window.quota, window.windowMs);
  if (check) keys.push(check.versionKey, check.writingKey);
  if (check?.premise) {
    keys.push(check.premise.versionKey, check.premise.writingKey);
    args.push(check.premise.expected);
  }
  if (ackWaitMs === undefined) return parseReply(await evalStored(redis, SCRIPT, keys, args), windows.length);
  const { reply, replicas } = await evalAcknowledged(redis, SCRIPT, keys, args, ackWaitMs);
  return { ...parseReply(reply, windows.length), replicas };
}

/** The members a request of `cost` holds in its log: what a retraction removes. */
export function membersOf(member: string, cost: number): string[] {
  const members = [member];
  for (let k = 2; k <= cost; k++) members.push(`${member}#${k}`);
  return members;
}

/** One window's view of a decision (the shape tests and the exactness worker read). */
export interface SlidingLogReply extends Omit<StackedLogReply, "windows"> {
  /** The slots held just before this request. */
  held: HeldSlots;
}

/** `evalStackedLog` over one window with cost 1. */
export async function evalSlidingLog(
  redis: RedisClient,
  key: string,
  quota: number,
  windowMs: number,
  member: string,
  check?: RecordVersionCheck,
  ackWaitMs?: number,
): Promise<SlidingLogReply> {
  const { windows, ...reply } = await evalStackedLog(
    redis,
    key,
    [{ quota, windowMs }],
    1,
    member,
    check,
    ackWaitMs,
  );
  const held = windows[0] ?? { count: 0, oldest: undefined };
  return { ...reply, held: { count: held.count, oldest: held.oldest } };
}

/** The SHA-1 Redis caches the script under (tests check the cache). */
export const slidingLogScriptSha = SCRIPT_SHA;
