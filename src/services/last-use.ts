import type { Clock } from "../domain/clock.js";
import type { ApiKeyRecord, KeyUseStore } from "../store/key-store.js";

/** Where failed writes are reported; the Fastify (pino) logger fits. */
export interface LastUseLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Records when each key last authenticated, approximate to the minute. The hot path calls `touch` after
 * every successful authentication; it never waits for the database and never throws.
 */
export interface LastUseRecorder {
  /** Notes that `key` has just authenticated; writes at most once per interval per key. */
  touch(key: ApiKeyRecord): void;
  /** Resolves once every write started so far has settled (before closing the store, and in tests). */
  flush(): Promise<void>;
}

export interface LastUseOptions {
  store: Pick<KeyUseStore, "touchLastUsed">;
  clock: Clock;
  log: LastUseLog;
  /** The precision of `last_used_at`: one write per key per interval at most (60 s). */
  intervalMs?: number;
  /** Keys remembered per node; past it the oldest are forgotten, which costs at most a redundant write. */
  maxTracked?: number;
}

export const LAST_USE_INTERVAL_MS = 60_000;

/**
 * Two throttles. On this node, a map of key id -> time of its last write (only keys that have just
 * authenticated enter it, so unknown api_ids can never grow it) skips the database within the
 * interval. Across nodes, the UPDATE is conditional on the stored time being older than the interval,
 * so several nodes together still write about once a minute.
 */
export function createLastUseRecorder(options: LastUseOptions): LastUseRecorder {
  const { store, clock, log } = options;
  const interval = options.intervalMs ?? LAST_USE_INTERVAL_MS;
  const maxTracked = options.maxTracked ?? 10_000;
  // Kept in order of write time (deleted and re-set on each write), so the oldest come first.
  const written = new Map<string, number>();
  const pending = new Set<Promise<void>>();

  function remember(id: string, at: number): void {
    written.delete(id);
    if (written.size >= maxTracked) {
      for (const [oldId, oldAt] of written) {
        if (at - oldAt < interval) break;
        written.delete(oldId);
      }
      const oldest = written.keys().next();
      if (written.size >= maxTracked && !oldest.done) written.delete(oldest.value);
    }
    written.set(id, at);
  }

  return {
    touch(key) {
      const now = clock.now();
      const last = Math.max(written.get(key.id) ?? -Infinity, key.lastUsedAt ?? -Infinity);
      if (now - last < interval) return;
      remember(key.id, now);
      // Started from a resolved promise, so that even a store that throws synchronously cannot throw here.
      const write: Promise<void> = Promise.resolve()
        .then(() => store.touchLastUsed(key, now, now - interval))
        .catch((error: unknown) => {
          log.warn(
            { key_id: key.id, error: error instanceof Error ? error.message : String(error) },
            "could not record a key's last use",
          );
        })
        .finally(() => pending.delete(write));
      pending.add(write);
    },

    async flush() {
      await Promise.all([...pending]);
    },
  };
}
