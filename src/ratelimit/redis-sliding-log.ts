import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { HeldSlots } from "../domain/sliding-log.js";

/**
 * One decision of the exact sliding log, run atomically inside Redis so that callers on every node
 * share one log per bucket and one clock (Redis `TIME`, never a node's clock).
 *
 * KEYS[1]: the bucket's sorted set (member = one admission, score = its time in ms).
 * ARGV: quota, window in ms, a member unique to this request.
 * Returns { admitted 0|1, slots held before this request, oldest held time or -1, now in ms }.
 *
 * Only admitted requests are added, so a rejected request takes no slot; the key expires one window
 * after its newest admission, so idle buckets cost nothing. The admission rule (`count >= quota`
 * denies) is the one of domain/sliding-log.ts; it has to be repeated here to be atomic.
 */
export const SLIDING_LOG_SCRIPT = `
local key = KEYS[1]
local quota = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local oldest = -1
if count > 0 then
  oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
end
if count >= quota then
  return {0, count, oldest, now}
end
redis.call('ZADD', key, now, ARGV[3])
redis.call('PEXPIRE', key, window)
return {1, count, oldest, now}
`;

const SCRIPT_SHA = createHash("sha1").update(SLIDING_LOG_SCRIPT).digest("hex");

/** What Redis decided for one request, in Redis time. */
export interface SlidingLogReply {
  /** Whether the request took a slot. */
  admitted: boolean;
  /** The slots held just before this request. */
  held: HeldSlots;
  /** Redis time of the decision, epoch milliseconds. */
  now: number;
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}

function parseReply(reply: unknown): SlidingLogReply {
  if (!Array.isArray(reply) || reply.length !== 4 || !reply.every((n) => typeof n === "number")) {
    throw new Error(`Unexpected sliding-log reply from Redis: ${JSON.stringify(reply)}`);
  }
  const [admitted, count, oldest, now] = reply as [number, number, number, number];
  return { admitted: admitted === 1, held: { count, oldest: oldest < 0 ? undefined : oldest }, now };
}

/**
 * Runs the script in one round trip by its SHA-1; only when Redis does not know it (first use, a
 * restart, `SCRIPT FLUSH`) is the source sent, which also caches it for the next call.
 */
export async function evalSlidingLog(
  redis: Redis,
  key: string,
  quota: number,
  windowMs: number,
  member: string,
): Promise<SlidingLogReply> {
  let reply: unknown;
  try {
    reply = await redis.evalsha(SCRIPT_SHA, 1, key, quota, windowMs, member);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    reply = await redis.eval(SLIDING_LOG_SCRIPT, 1, key, quota, windowMs, member);
  }
  return parseReply(reply);
}

/** The SHA-1 Redis caches the script under (tests check the cache). */
export const slidingLogScriptSha = SCRIPT_SHA;
