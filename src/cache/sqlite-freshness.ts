import type { Database } from "better-sqlite3";
import type { Freshness } from "./freshness.js";

/**
 * What a SQLite file's cached records are validated by. Another process's commit (the CLI, a second
 * server on the same file) changes `PRAGMA data_version`; this connection's own writes do not, so the
 * statement cache reports them through `noteWrite`. Either one starts a new generation, and every
 * cached record of an older generation is read again.
 *
 * `data_version` costs about as much as a point read (two `fcntl` calls for its read lock), so it is
 * asked once per turn of the event loop, not once per cached read: `beginRequest` holds each new
 * request until the end of the turn it arrived in (`setImmediate`), asks once for all of them, then
 * lets them go on. Every request so uses an answer taken after it started, and a burst of requests
 * shares one answer and is answered together. `generation()` outside a request (the CLI, a request
 * that continues in a later turn) asks again, at most once per turn.
 */
export function createSqliteFreshness(database: Database): Freshness & { noteWrite(): void } {
  const dataVersion = database.prepare("PRAGMA data_version").pluck();
  let generation = 0;
  let lastDataVersion: unknown;
  let checked = false;
  let clearScheduled = false;
  let held: (() => void)[] = [];
  const clear = () => {
    checked = false;
    clearScheduled = false;
  };

  function check(): void {
    const version = dataVersion.get();
    if (version !== lastDataVersion) {
      lastDataVersion = version;
      generation++;
    }
    checked = true;
    if (!clearScheduled) {
      clearScheduled = true;
      setImmediate(clear);
    }
  }

  function checkAndRelease(): void {
    const requests = held;
    held = [];
    check();
    for (const resume of requests) resume();
  }

  return {
    generation() {
      if (!checked) check();
      return generation;
    },
    beginRequest(resume) {
      checked = false;
      if (held.length === 0) setImmediate(checkAndRelease);
      held.push(resume);
    },
    noteWrite() {
      generation++;
    },
  };
}
