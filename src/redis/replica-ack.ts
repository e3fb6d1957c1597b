import type { Redis } from "ioredis";
import { isCluster, type RedisClient } from "./connection.js";

/** A script's reply, and how many replicas confirmed holding its writes within the wait. */
export interface AcknowledgedReply {
  reply: unknown;
  /** WAIT's answer: replicas that acknowledged every write of this connection so far (0 on timeout). */
  replicas: number;
}

/** A Lua script to run by its SHA-1, sending the source only when Redis does not know it. */
export interface StoredScript {
  sha: string;
  source: string;
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}

/** Runs `script` by its SHA-1 alone in one round trip; only when Redis does not know it is the source sent. */
export async function evalStored(
  redis: RedisClient,
  script: StoredScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}

/** The node a cluster redirection names ("MOVED 3999 127.0.0.1:7002", "ASK ..."), if ioredis knows it. */
function redirectedNode(redis: RedisClient, error: Error): { node: Redis; asking: boolean } | undefined {
  const [kind, , address] = error.message.split(" ");
  if (!isCluster(redis) || (kind !== "MOVED" && kind !== "ASK")) return undefined;
  // The slot map is stale (MOVED) or the slot is moving (ASK): ioredis learns the new map meanwhile.
  redis.refreshSlotsCache();
  const node = redis.nodes("all").find((n) => `${n.options.host}:${n.options.port}` === address);
  return node ? { node, asking: kind === "ASK" } : undefined;
}

/**
 * Runs `script` and then `WAIT 1 <waitMs>` on the same connection, in one pipeline, so WAIT counts the
 * replicas holding the script's writes (WAIT covers every earlier write of its connection; it cannot
 * run inside a script). On a cluster the pipeline goes to the master of the keys' slot; a MOVED or
 * ASK answer (a slot migrating, a promotion) is followed once to the node it names, the ASK with
 * `ASKING` first, since ioredis retries only read-only pipelines itself. Anything else is thrown: the
 * caller retries under the same member (src/ratelimit/redis-rate-limiter.ts).
 */
export async function evalAcknowledged(
  redis: RedisClient,
  script: StoredScript,
  keys: readonly string[],
  args: readonly (string | number)[],
  waitMs: number,
): Promise<AcknowledgedReply> {
  const timeout = Math.max(1, Math.floor(waitMs));
  const send = async (target: RedisClient, asking: boolean, source: boolean) => {
    const pipeline = target.pipeline();
    if (asking) pipeline.asking();
    if (source) pipeline.eval(script.source, keys.length, ...keys, ...args);
    else pipeline.evalsha(script.sha, keys.length, ...keys, ...args);
    pipeline.wait(1, timeout);
    const results = (await pipeline.exec()) ?? [];
    const [evalResult, waitResult] = results.slice(asking ? 1 : 0);
    const [error, reply] = evalResult ?? [new Error("Redis sent no reply to the script")];
    if (error) throw error;
    return { reply, replicas: Number(waitResult?.[1] ?? 0) };
  };
  const attempt = async (target: RedisClient, asking: boolean) => {
    try {
      return await send(target, asking, false);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return send(target, asking, true);
    }
  };
  try {
    return await attempt(redis, false);
  } catch (error) {
    const redirected = error instanceof Error ? redirectedNode(redis, error) : undefined;
    if (!redirected) throw error;
    return attempt(redirected.node, redirected.asking);
  }
}
