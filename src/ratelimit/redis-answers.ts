import type { Redis } from "ioredis";
import { isCluster, type RedisClient } from "../redis/connection.js";

/**
 * How long Redis has kept a node waiting: the time since the first command sent after Redis last sent
 * anything at all. Any byte from Redis counts, including the late answer to a command that already
 * timed out, so a node whose own event loop was late to read an answer never takes that for silence.
 */
export interface RedisAnswers {
  /** Notes that a command was sent (a limiter call or a ping) and an answer is awaited. */
  sent(): void;
  /** Milliseconds Redis has been silent while an answer was awaited; 0 when nothing is awaited. */
  silentForMs(): number;
}

/**
 * Watches every connection `redis` opens (it reconnects by itself) for bytes from the server; on a
 * cluster, every node's connection, as ioredis adds them (`+node`): an answer from any master counts,
 * so one master's death is not silence while the others answer.
 */
export function watchAnswers(redis: RedisClient, now: () => number = Date.now): RedisAnswers {
  let awaitingSince: number | undefined;
  const watched = new WeakSet<object>();

  function watchConnection(connection: Redis): void {
    const watch = () => {
      // ioredis opens a new socket on every reconnect and announces it with "connect".
      const stream = connection.stream as (typeof connection.stream & object) | undefined;
      if (!stream || watched.has(stream)) return;
      watched.add(stream);
      stream.on("data", () => {
        awaitingSince = undefined;
      });
    };
    connection.on("connect", watch);
    watch();
  }

  if (isCluster(redis)) {
    redis.on("+node", watchConnection);
    for (const node of redis.nodes("all")) watchConnection(node);
  } else {
    watchConnection(redis);
  }

  return {
    sent() {
      awaitingSince ??= now();
    },
    silentForMs() {
      return awaitingSince === undefined ? 0 : now() - awaitingSince;
    },
  };
}

/**
 * Resolves once the event loop has read the input already waiting: a timer that fires late (a busy
 * CPU) runs before the socket reads of the same loop turn, and an answer sitting in the socket must be
 * seen before anything is concluded from a timeout.
 */
export function afterPendingInput(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
