import type { Database } from "better-sqlite3";
import { crossedThresholds, thresholdEvent, thresholdMarks } from "../domain/credit-alerts.js";
import type { CreditConsumption, CreditResult } from "./plan-store.js";
import { createSqliteOutbox } from "./sqlite-outbox.js";

/**
 * The same conditional upsert as consume-credits.ts, prepared once with bound parameters, in order: the
 * organization, the period's start and end, the credits, overages on (1/0), the allowance. It changes no
 * row when the request is refused, and then nothing was written. A request larger than the allowance on
 * its own never gets here (the caller refuses it without writing).
 *
 * Without `RETURNING`, unlike consume-credits.ts: SQLite collects returned rows in an ephemeral table
 * that it creates and drops for every statement, which cost more than reading the total back with `USED`
 * (bench/README.md, "Credits in the turn of their requests").
 */
const CONSUME = `insert into credit_periods (org_id, period_start, period_end, used)
  values (?, cast(? as bigint), cast(? as bigint), cast(? as integer))
  on conflict (org_id, period_start) do update set used = credit_periods.used + excluded.used
  where ? = 1 or credit_periods.used + excluded.used <= ?`;

const RECORD_USAGE = `insert into usage_hours (org_id, hour_start, images)
  values (?, cast(? as bigint), cast(? as integer))
  on conflict (org_id, hour_start) do update set images = usage_hours.images + excluded.images`;

const USED = "select used from credit_periods where org_id = ? and period_start = ?";

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** Each consumption's answer, or the error that refused it alone (its savepoint was rolled back). */
export type BatchOutcome = CreditResult | Error;

/**
 * Credits on SQLite without Kysely: the statements are prepared once and a batch of consumptions runs
 * synchronously on the better-sqlite3 connection as ONE `BEGIN IMMEDIATE` transaction (which waits for
 * another process's write lock under the busy timeout instead of failing). Each consumption is the same
 * conditional upsert in order, so the batch is exactly as exact as one transaction each; when one
 * fails, the batch is rolled back and run again with each in its own savepoint, so it is refused alone. One commit for the batch is the saving:
 * a commit is most of a consumption's cost (its WAL frames and file locks, about 10 system calls).
 * Through Kysely one consumption cost about 45 µs of CPU (bench/README.md).
 *
 * These statements bypass the statement cache on purpose: writes to `credit_periods` and `usage_hours`
 * must not start a new cache generation (sqlite-statement-cache.ts), and these write nothing else.
 *
 * Returns undefined, running nothing, while a Kysely transaction is open on the connection (between its
 * awaits): run now, the consumptions would become savepoints inside that transaction and be rolled
 * back with it. The caller then takes the Kysely path, which waits for the connection's mutex.
 */
export function createSqliteCreditConsumer(
  database: Database,
): (batch: readonly CreditConsumption[]) => BatchOutcome[] | undefined {
  const consume = database.prepare(CONSUME);
  const recordUsage = database.prepare(RECORD_USAGE);
  const usedNow = database.prepare(USED).pluck();
  const enqueue = createSqliteOutbox(database);

  // Runs only inside a write transaction (BEGIN IMMEDIATE), so USED reads the total this upsert left:
  // no other connection can commit in between.
  function consumeOne(c: CreditConsumption): CreditResult {
    const fits = c.overages || c.credits <= c.allowance;
    const changed = fits
      ? consume.run(c.orgId, c.periodStart, c.periodEnd, c.credits, c.overages ? 1 : 0, c.allowance).changes
      : 0;
    const consumed = changed === 1;
    if (consumed) recordUsage.run(c.orgId, c.hourStart, c.credits);
    const used = Number(usedNow.get(c.orgId, c.periodStart) ?? 0);
    // A threshold crossed: its event is written in this transaction, with the consumption.
    if (consumed && c.alerts) {
      const marks = thresholdMarks(c.allowance, c.alerts.thresholds);
      for (const percent of crossedThresholds(marks, used - c.credits, used)) {
        enqueue(thresholdEvent(c, percent, used, c.alerts.at));
      }
    }
    return { consumed, used };
  }

  const single = database.transaction(consumeOne);
  // The usual batch: every consumption succeeds (a refusal is an answer, not an error), so none needs
  // a savepoint of its own; if one throws, the whole transaction rolls back and nothing was consumed.
  const allOrNothing = database.transaction((batch: readonly CreditConsumption[]): BatchOutcome[] =>
    batch.map(consumeOne),
  );
  // Then the batch runs again with each consumption in its own savepoint (better-sqlite3 nests a
  // transaction function as one), so only the failing one is refused.
  const inSavepoint = database.transaction(consumeOne);
  const eachAlone = database.transaction((batch: readonly CreditConsumption[]): BatchOutcome[] =>
    batch.map((c) => {
      try {
        return inSavepoint(c);
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
    }),
  );

  return (batch) => {
    if (database.inTransaction) return undefined;
    if (batch.length === 1) return [single.immediate(batch[0] as CreditConsumption)];
    try {
      return allOrNothing.immediate(batch);
    } catch (error) {
      // Busy past the timeout: trying again would only wait as long once more.
      if (isBusy(error)) throw error;
      return eachAlone.immediate(batch);
    }
  };
}
