import { randomUUID } from "node:crypto";
import { LatchkeyError } from "../domain/errors.js";
import { oneWindow } from "../domain/sliding-log.js";
import { decideStacked, type StackedDecision, type WindowLimit } from "../domain/stacked-log.js";
import { closeRedis, DEFAULT_REDIS_DEADLINE_MS, isCluster, type RedisClient } from "../redis/connection.js";
import type { CheckedStackedDecision, RateLimiter, RecordVersionCheck } from "./rate-limiter.js";
import { afterPendingInput, watchAnswers } from "./redis-answers.js";
import { evalStackedLog, membersOf, type StackedLogReply } from "./redis-sliding-log.js";
import { readRecordVersions } from "../cache/redis-record-versions.js";

/** A limiter whose backend can be checked without counting a request. */
export interface CheckableRateLimiter extends RateLimiter {
  /** Resolves when the backend answers; rejects (quickly) when it does not. */
  ping(): Promise<void>;
  /** Always present on a shared limiter (RateLimiter.consumeChecked). */
  consumeChecked: NonNullable<RateLimiter["consumeChecked"]>;
  /**
   * Why the node should stop relying on the backend now (its connection is lost, or it has not
   * answered anything for the outage time), or undefined while it answers, however slowly. Decided
   * only after the input already waiting has been read, so a late event loop is never taken for it.
   */
  outage(): Promise<string | undefined>;
}

export interface RedisRateLimiterOptions {
  /**
   * How long one decision may take, retries included (LATCHKEY_REDIS_DEADLINE_MS): an attempt that
   * times out is sent again with the same member until then; the call then fails.
   */
  deadlineMs?: number;
  /** Silence after which Redis counts as gone (LATCHKEY_REDIS_OUTAGE_AFTER_MS); retries stop then. */
  outageAfterMs?: number;
  /**
   * A cluster or a Sentinel-managed master: a lost connection may be a failover, not an outage, so
   * a failed attempt is retried like a slow one until the deadline, and only silence past
   * `outageAfterMs` is an outage. One server: a lost connection is an outage at once.
   */
  tolerateFailover?: boolean;
  /**
   * LATCHKEY_REDIS_REPLICAS_ACK=1: an admission counts only once `WAIT` confirms a replica holds it;
   * until then the decision is sent again (same member), and at the deadline it is retracted and
   * answered 503.
   */
  replicasAck?: boolean;
  /**
   * Why no replica can acknowledge a slot of `bucket` now (its master has none), or undefined; with
   * `replicasAck`, such a decision is refused at once instead of waiting out the deadline.
   */
  replicaMissing?: (bucket: string) => string | undefined;
  now?: () => number;
}

/** Default of LATCHKEY_REDIS_OUTAGE_AFTER_MS. */
export const DEFAULT_REDIS_OUTAGE_AFTER_MS = 2000;

/**
 * How long an attempt goes unanswered before the same decision is sent again. Every attempt stays
 * alive until the deadline (the connection's command timeout), so the first answer to any of them
 * decides, and a late answer is never thrown away.
 */
const RETRY_AFTER_MS = 400;

/**
 * Members waiting for a connection to be retracted; past this many (a long outage under heavy load)
 * the rest are left to expire with their window, as any slot does.
 */
const MAX_UNRETRACTED = 100_000;

/** What a failed decision may have taken: its members (one per unit of cost) in its bucket's log. */
interface Retraction {
  bucket: string;
  members: string[];
}

/** The deadline of one decision passed before Redis answered any of its attempts. */
export class RedisDeadlineExceeded extends Error {
  constructor(deadlineMs: number) {
    super(`Redis did not answer within ${deadlineMs} ms (retries included)`);
    this.name = "RedisDeadlineExceeded";
  }
}

/** The answer while no replica can hold a slot and LATCHKEY_REDIS_REPLICAS_ACK=1: exactness before availability. */
export function noReplicaAcknowledged(reason: string): LatchkeyError {
  return new LatchkeyError(
    "rate_limiter_unavailable",
    `No Redis replica confirmed holding this request's slot (${reason}), and this deployment admits only ` +
      "what a replica holds (LATCHKEY_REDIS_REPLICAS_ACK=1), so the request was not admitted. Try again shortly.",
    { retryAfterSeconds: 1 },
  );
}

/** ioredis rejects a command with this message after its `commandTimeout` (src/redis/connection.ts). */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === "Command timed out";
}

/** The script's admission must be the domain's: both implement one rule (domain/stacked-log.ts). */
function decisionOf(reply: StackedLogReply, windows: readonly WindowLimit[], cost: number): StackedDecision {
  if (reply.replayed) {
    // The answer to an attempt that was admitted already: admitted again, whatever the quotas are now.
    return {
      type: "allow",
      windows: windows.map((window, i) => {
        const held = reply.windows[i];
        return {
          remaining: Math.max(0, window.quota - (held?.count ?? 0) - cost),
          resetMs: (held?.oldest ?? reply.now) + window.windowMs - reply.now,
        };
      }),
    };
  }
  const decision = decideStacked(reply.windows, reply.now, windows, cost);
  if ((decision.type === "allow") !== reply.admitted) {
    throw new Error("Redis sliding log and domain/stacked-log.ts disagree; the script is out of date.");
  }
  return decision;
}

/** Admissions of KEYS[1] still inside a window of ARGV[1] ms, by Redis' clock (as the sliding log counts). */
const HELD_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. (now - tonumber(ARGV[1])), '+inf')
`;

/**
 * The exact sliding log shared by every node through Redis: one script call (one round trip) per
 * decision, in Redis time. Bucket names become Redis keys as they are; the caller namespaces them.
 *
 * A slow answer is not an outage: an unanswered decision is sent again, under the same member, until
 * its deadline, and the first answer to any attempt decides; the script counts a member once
 * (redis-sliding-log.ts), so a retry of an attempt that Redis did admit is answered "admitted" again
 * and never takes a second slot. Only a lost connection or the outage silence ends the retries early.
 */
export function createRedisRateLimiter(
  redis: RedisClient,
  options: RedisRateLimiterOptions = {},
): CheckableRateLimiter {
  const deadlineMs = options.deadlineMs ?? DEFAULT_REDIS_DEADLINE_MS;
  const tolerateFailover = options.tolerateFailover ?? false;
  const replicasAck = options.replicasAck ?? false;
  const outageAfterMs = options.outageAfterMs ?? DEFAULT_REDIS_OUTAGE_AFTER_MS;
  const now = options.now ?? Date.now;
  const answers = watchAnswers(redis, now);
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

  const connectionLost = () => {
    // A socket the server has closed stops being writable before ioredis processes the close.
    if (redis.status === "ready" && (isCluster(redis) || redis.stream?.writable)) return undefined;
    const cause = lastConnectionError ? `: ${lastConnectionError.message}` : "";
    return `the connection to Redis is ${redis.status === "ready" ? "closed" : redis.status}${cause}`;
  };

  // Members of decisions that failed while the connection was down, retracted once it is back.
  const unretracted = new Map<string, Retraction>();
  /**
   * Removes a failed decision's members from its log (every window's count), so a request answered 503 (or
   * counted on this node alone) never also holds a shared slot: the ZREMs are sent behind the
   * decision's attempts on the same connection, so Redis runs them after any of them it has yet to
   * run, and an admission whose reply came too late is taken back. While the connection is down, they
   * wait for the next one.
   */
  const later = (id: string, retraction: Retraction) => {
    if (unretracted.size < MAX_UNRETRACTED) unretracted.set(id, retraction);
  };
  const retract = (id: string, retraction: Retraction) => {
    if (connectionLost() !== undefined) return later(id, retraction);
    redis.zrem(retraction.bucket, ...retraction.members).catch(() => later(id, retraction));
  };
  redis.on("ready", () => {
    for (const [id, retraction] of unretracted) {
      unretracted.delete(id);
      retract(id, retraction);
    }
  });

  /**
   * One decision: the same attempt (same member) sent again every `RETRY_AFTER_MS` while none is
   * answered, until the first answer, an error other than a timeout (a lost connection, an error
   * reply; on a cluster or Sentinel those are retried too, a failover being under way), the
   * deadline, or the moment the node would leave Redis for its silence. Time limits are judged only
   * after the input waiting then has been read, so an answer that arrived while this process was
   * starved of CPU still decides. With replica acknowledgement an admission no replica confirmed
   * decides nothing: it is sent again, and at the deadline its member is retracted.
   */
  function decide(
    bucket: string,
    id: string,
    cost: number,
    attempt: (ackWaitMs: number | undefined) => Promise<StackedLogReply>,
  ): Promise<StackedLogReply> {
    const giveUpAt = now() + deadlineMs;
    if (replicasAck) {
      const missing = options.replicaMissing?.(bucket);
      if (missing) return Promise.reject(noReplicaAcknowledged(missing));
    }
    const retraction = { bucket, members: membersOf(id, cost) };
    return new Promise((resolve, reject) => {
      let settled = false;
      let unconfirmed = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      const send = () => {
        answers.sent();
        const ackWaitMs = replicasAck ? Math.max(1, Math.min(RETRY_AFTER_MS, giveUpAt - now())) : undefined;
        attempt(ackWaitMs).then(
          (reply) => {
            if (replicasAck && reply.admitted && (reply.replicas ?? 0) < 1) {
              unconfirmed = true;
              return;
            }
            settle(() => resolve(reply));
          },
          (error: unknown) => {
            // A timed-out attempt leaves the decision to the others and to the deadline.
            if (isTimeout(error) || tolerateFailover) return;
            // A lost connection may have taken an admission's reply with it: that slot goes too.
            retract(id, retraction);
            // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the attempt's own failure, as it came
            settle(() => reject(error));
          },
        );
      };
      const giveUp = () => {
        // An attempt may have been admitted without a reply (or without a replica's confirmation):
        // a request refused here must hold no slot.
        retract(id, retraction);
        const error = unconfirmed
          ? noReplicaAcknowledged(`none within ${deadlineMs} ms`)
          : new RedisDeadlineExceeded(deadlineMs);
        settle(() => reject(error));
      };
      const schedule = () => {
        const untilOutage = outageAfterMs - answers.silentForMs();
        const wait = Math.min(RETRY_AFTER_MS, giveUpAt - now(), untilOutage);
        timer = setTimeout(tick, Math.max(0, wait));
      };
      const tick = () =>
        void afterPendingInput().then(() => {
          if (settled) return;
          const lost = tolerateFailover ? undefined : connectionLost();
          if (now() >= giveUpAt || answers.silentForMs() >= outageAfterMs || lost) {
            giveUp();
            return;
          }
          send();
          schedule();
        });
      send();
      schedule();
    });
  }

  /**
   * On a cluster a script cannot read the service tokens' version (another slot) beside the
   * organization's: it is read in a call of its own, sent with the decision's (one round trip of
   * latency), and when it does not hold, a decision the script admitted is retracted and answered
   * "stale", so a request refused for its token holds no slot either.
   */
  async function premiseHolds(premise: NonNullable<RecordVersionCheck["premise"]>): Promise<boolean> {
    try {
      const [seen] = await readRecordVersions(redis, [premise]);
      return seen !== undefined && seen.version === premise.expected && !seen.writing;
    } catch {
      return false;
    }
  }

  async function consumeWindows(
    bucket: string,
    windows: readonly WindowLimit[],
    cost: number,
    check: RecordVersionCheck | undefined,
  ): Promise<CheckedStackedDecision> {
    const id = member();
    const apart = check?.premise && isCluster(redis) ? check.premise : undefined;
    const scripted = apart ? { ...check, premise: undefined } : check;
    const held = apart ? premiseHolds(apart) : undefined;
    const reply = await decide(bucket, id, cost, (ack) =>
      evalStackedLog(redis, bucket, windows, cost, id, scripted as RecordVersionCheck | undefined, ack),
    );
    if (held && !(await held) && !reply.stale) {
      if (reply.admitted) retract(id, { bucket, members: membersOf(id, cost) });
      return { type: "stale", records: reply.records };
    }
    if (reply.stale) return { type: "stale", records: reply.records };
    return { type: "decided", decision: decisionOf(reply, windows, cost), records: reply.records };
  }

  return {
    get healthy() {
      return redis.status === "ready";
    },

    async consume(bucket, quota, windowMs) {
      const answer = await consumeWindows(bucket, [{ quota, windowMs }], 1, undefined);
      // Without a record-version check the script never answers "stale".
      return oneWindow((answer as Extract<CheckedStackedDecision, { type: "decided" }>).decision);
    },

    async held(bucket, windowMs) {
      // A read for people (the console), not a decision: one plain call, no retries, Redis' clock.
      const count = await redis.eval(HELD_SCRIPT, 1, bucket, windowMs);
      return Number(count);
    },

    async consumeChecked(bucket, quota, windowMs, check) {
      const answer = await consumeWindows(bucket, [{ quota, windowMs }], 1, check);
      if (answer.type === "stale") return answer;
      return { type: "decided", decision: oneWindow(answer.decision), records: answer.records };
    },

    consumeWindows,

    async ping() {
      // During a failover a lost connection is silence, which becomes an outage only if it lasts.
      if (tolerateFailover) answers.sent();
      const lost = connectionLost();
      if (lost) throw new Error(lost);
      answers.sent();
      await redis.ping();
    },

    async outage() {
      await afterPendingInput();
      const lost = tolerateFailover ? undefined : connectionLost();
      if (lost) return lost;
      const silent = answers.silentForMs();
      return silent >= outageAfterMs ? `Redis has not answered for ${silent} ms` : undefined;
    },

    async close() {
      await closeRedis(redis);
    },
  };
}
