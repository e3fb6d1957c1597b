import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { decideSlidingLog, type SlidingLogDecision } from "../domain/sliding-log.js";
import type { RateLimiter } from "./rate-limiter.js";
import { evalSlidingLog, type SlidingLogReply } from "./redis-sliding-log.js";

/** A limiter whose backend can be checked without counting a request. */
export interface CheckableRateLimiter extends RateLimiter {
  /** Resolves when the backend answers; rejects (quickly) when it does not. */
  ping(): Promise<void>;
  /** Always present on a shared limiter (RateLimiter.consumeChecked). */
  consumeChecked: NonNullable<RateLimiter["consumeChecked"]>;
}

/** The script's admission must be the domain's: both implement one rule (domain/sliding-log.ts). */
function decisionOf(reply: SlidingLogReply, quota: number, windowMs: number): SlidingLogDecision {
  const decision = decideSlidingLog(reply.held, reply.now, quota, windowMs);
  if ((decision.type === "allow") !== reply.admitted) {
    throw new Error("Redis sliding log and domain/sliding-log.ts disagree; the script is out of date.");
  }
  return decision;
}

/**
 * The exact sliding log shared by every node through Redis: one script call (one round trip) per
 * decision, in Redis time. Bucket names become Redis keys as they are; the caller namespaces them.
 */
export function createRedisRateLimiter(redis: Redis): CheckableRateLimiter {
  // Members must be unique across every node and request, or two admissions would count as one.
  const instance = randomUUID();
  let sequence = 0;
  let lastConnectionError: Error | undefined;
  redis.on("error", (error: Error) => {
    lastConnectionError = error;
  });
  const member = () => {
    sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
    return `${instance}:${sequence}`;
  };

  return {
    get healthy() {
      return redis.status === "ready";
    },

    async consume(bucket, quota, windowMs) {
      const reply = await evalSlidingLog(redis, bucket, quota, windowMs, member());
      return decisionOf(reply, quota, windowMs);
    },

    async consumeChecked(bucket, quota, windowMs, check) {
      const reply = await evalSlidingLog(redis, bucket, quota, windowMs, member(), check);
      if (reply.stale) return { type: "stale", records: reply.records };
      return { type: "decided", decision: decisionOf(reply, quota, windowMs), records: reply.records };
    },

    async ping() {
      if (redis.status !== "ready") {
        const cause = lastConnectionError ? `: ${lastConnectionError.message}` : "";
        throw new Error(`Redis connection is ${redis.status}${cause}`);
      }
      await redis.ping();
    },

    async close() {
      if (redis.status === "ready") {
        await redis.quit().catch(() => redis.disconnect());
      } else {
        redis.disconnect();
      }
    },
  };
}
