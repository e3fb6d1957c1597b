import type { Database } from "better-sqlite3";
import type { Freshness } from "../cache/freshness.js";

/**
 * What a SQLite file's cached records are validated by. Another process's commit (the CLI, a second
 * server on the same file) changes `PRAGMA data_version`; this connection's own writes do not, so the
 * statement cache reports them through `noteWrite`. Either one starts a new generation, and every
 * cached record of an older generation is read again.
 *
 * `data_version` costs about as much as a point read, so it is asked once per request, not once per
 * cached read: `beginRequest` (a hook at the start of every HTTP request) forgets the answer, and so
 * does the end of the event-loop turn, so the answer a request uses was always taken after it started.
 */
export function createSqliteFreshness(database: Database): Freshness & { noteWrite(): void } {
  const dataVersion = database.prepare("PRAGMA data_version").pluck();
  let generation = 0;
  let lastDataVersion: unknown;
  let checked = false;
  let clearScheduled = false;
  const clear = () => {
    checked = false;
    clearScheduled = false;
  };

  return {
    generation() {
      if (!checked) {
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
      return generation;
    },
    beginRequest() {
      checked = false;
    },
    noteWrite() {
      generation++;
    },
  };
}
