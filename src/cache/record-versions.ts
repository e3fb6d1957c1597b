/** The latest record version of one organization this node saw, and when (in this node's order). */
export interface Observation {
  /** The organization's record version in Redis at that moment. */
  version: number;
  /** Whether a write of its records was in progress then (records read now may miss or hold it). */
  writing: boolean;
  /** This node's sequence number of the moment the reply was recorded. */
  sequence: number;
}

/**
 * What this node has seen of each organization's record version (src/cache/redis-record-versions.ts),
 * from the rate-limit script's replies. A record read from the database may be cached at version V
 * only when V was observed, with no write in progress, before the read started: every write that had
 * answered by then is in what was read, and any later write moves the version past V.
 *
 * One connection carries every script call of a node, so replies arrive in Redis' own order and the
 * latest reply is the latest state (even if Redis was restored to an older version meanwhile).
 */
export interface RecordVersions {
  /** Records a script reply for `orgId`. */
  observe(orgId: string, version: number, writing: boolean): void;
  /** A sequence number to take just before a database read (compare with `Observation.sequence`). */
  mark(): number;
  /** The version a record of `orgId`, read after `mark` was taken, may be cached at; or undefined. */
  versionFor(orgId: string, mark: number): number | undefined;
  /** Forgets everything (the limiter returned from its fallback: observations may be from before). */
  clear(): void;
  /** Organizations held. */
  readonly size: number;
}

/** Bounded: only organizations whose keys authenticated reach the script, and the oldest go first. */
export function createRecordVersions(capacity = 100_000): RecordVersions {
  const observations = new Map<string, Observation>();
  let sequence = 0;
  return {
    get size() {
      return observations.size;
    },
    observe(orgId, version, writing) {
      const current = observations.get(orgId);
      if (current) {
        current.version = version;
        current.writing = writing;
        current.sequence = ++sequence;
        return;
      }
      if (observations.size >= capacity) observations.delete(observations.keys().next().value as string);
      observations.set(orgId, { version, writing, sequence: ++sequence });
    },
    mark: () => ++sequence,
    versionFor(orgId, mark) {
      const seen = observations.get(orgId);
      if (!seen || seen.writing || seen.sequence > mark) return undefined;
      return seen.version;
    },
    clear() {
      observations.clear();
    },
  };
}
