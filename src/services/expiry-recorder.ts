import { SYSTEM_ACTOR } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import type { ApiKeyRecord, KeyUseStore, LastUseTarget } from "../store/key-store.js";
import { keySnapshot } from "./audit-snapshots.js";
import { auditOf } from "./audit-trail.js";

/** Where failed writes are reported; the Fastify (pino) logger fits. */
export interface ExpiryLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Records each key's expiry once, in the audit trail (`key.expired`) and a metric, whichever comes
 * first: the first request refused because of it, or the sweep. An expired key is refused whether or
 * not this has happened (the access decision compares `expires_at` with the time): this is the record
 * of it, not the enforcement.
 */
export interface ExpiryRecorder {
  /** A request ran into the expired `key`: record it unless done already. Never waits, never throws. */
  note(key: ApiKeyRecord): void;
  /** Records every expiry not recorded yet; resolves how many this call recorded. */
  sweep(): Promise<number>;
  /** Resolves once every write started so far has settled (before closing the store, and in tests). */
  flush(): Promise<void>;
}

export interface ExpiryRecorderOptions {
  store: Pick<KeyUseStore, "recordExpiry" | "findUnrecordedExpiries">;
  clock: Clock;
  log: ExpiryLog;
  /** Told once per expiry, by the one node whose write recorded it (the metric). */
  onRecorded?: () => void;
}

/** Keys a sweep reads at once. */
const SWEEP_BATCH = 100;
/** Keys this node remembers having noted; past it the memory starts over, costing a redundant write. */
const MAX_NOTED = 10_000;

/**
 * The write is one conditional UPDATE (`expiry_recorded_at` still null) with its audit entry in the same
 * transaction, so of every node and every sweep exactly one records a key's expiry. Each node also
 * remembers the keys it noted, so a client retrying an expired key costs the database one write.
 */
export function createExpiryRecorder(options: ExpiryRecorderOptions): ExpiryRecorder {
  const { store, clock, log } = options;
  const noted = new Set<string>();
  const pending = new Set<Promise<unknown>>();

  async function record(key: LastUseTarget): Promise<boolean> {
    const audit = auditOf<ApiKeyRecord>(clock, {
      actor: SYSTEM_ACTOR,
      orgId: key.orgId,
      action: "key.expired",
      targetOf: (expired) => expired.id,
      snapshot: keySnapshot,
    });
    const recorded = await store.recordExpiry(key, clock.now(), audit);
    if (recorded) options.onRecorded?.();
    return recorded;
  }

  function track<T>(work: Promise<T>): Promise<T> {
    pending.add(work);
    void work.finally(() => pending.delete(work)).catch(() => {});
    return work;
  }

  return {
    note(key) {
      if (noted.has(key.id)) return;
      if (noted.size >= MAX_NOTED) noted.clear();
      noted.add(key.id);
      // Started from a resolved promise, so that even a store that throws synchronously cannot throw here.
      void track(
        Promise.resolve()
          .then(() => record(key))
          .catch((error: unknown) => {
            noted.delete(key.id);
            log.warn(
              { key_id: key.id, error: error instanceof Error ? error.message : String(error) },
              "could not record a key's expiry",
            );
          }),
      );
    },

    async sweep() {
      return track(
        (async () => {
          let count = 0;
          for (;;) {
            const due = await store.findUnrecordedExpiries(clock.now(), SWEEP_BATCH);
            let recorded = 0;
            for (const key of due) if (await record(key)) recorded++;
            count += recorded;
            // A full batch that another node recorded meanwhile: the next sweep goes on.
            if (due.length < SWEEP_BATCH || recorded === 0) return count;
          }
        })(),
      );
    },

    async flush() {
      await Promise.allSettled([...pending]);
    },
  };
}
