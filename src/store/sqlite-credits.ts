import type { Database } from "better-sqlite3";
import type { CreditConsumption, CreditResult } from "./plan-store.js";

/**
 * The same conditional upsert as consume-credits.ts, prepared once with bound parameters, in order: the
 * organization, the period's start and end, the credits, overages on (1/0), the allowance. No row comes
 * back when the request is refused, and then nothing was written. A request larger than the allowance
 * on its own never gets here (the caller refuses it without writing).
 */
const CONSUME = `insert into credit_periods (org_id, period_start, period_end, used)
  values (?, cast(? as bigint), cast(? as bigint), cast(? as integer))
  on conflict (org_id, period_start) do update set used = credit_periods.used + excluded.used
  where ? = 1 or credit_periods.used + excluded.used <= ?
  returning used`;

const RECORD_USAGE = `insert into usage_hours (org_id, hour_start, images)
  values (?, cast(? as bigint), cast(? as integer))
  on conflict (org_id, hour_start) do update set images = usage_hours.images + excluded.images`;

const USED = "select used from credit_periods where org_id = ? and period_start = ?";

/**
 * Credits on SQLite without Kysely: the statements are prepared once and the transaction runs
 * synchronously on the better-sqlite3 connection (`BEGIN IMMEDIATE`, so it waits for another process's
 * write lock under the busy timeout instead of failing). Through Kysely the same transaction cost about
 * 45 µs of CPU, most of it building queries, its connection mutex and one promise per statement
 * (bench/README.md); here it is the SQLite work alone.
 *
 * These statements bypass the statement cache on purpose: writes to `credit_periods` and `usage_hours`
 * must not start a new cache generation (sqlite-statement-cache.ts), and these write nothing else.
 *
 * Returns undefined while a Kysely transaction is open on the connection (between its awaits): run now,
 * the consumption would become a savepoint inside that transaction and be rolled back with it. The
 * caller then takes the Kysely path, which waits for the connection's mutex like any other query.
 */
export function createSqliteCreditConsumer(
  database: Database,
): (c: CreditConsumption) => CreditResult | undefined {
  const consume = database.prepare(CONSUME).pluck();
  const recordUsage = database.prepare(RECORD_USAGE);
  const usedNow = database.prepare(USED).pluck();

  const transaction = database.transaction((c: CreditConsumption): CreditResult => {
    const fits = c.overages || c.credits <= c.allowance;
    const used = fits
      ? consume.get(c.orgId, c.periodStart, c.periodEnd, c.credits, c.overages ? 1 : 0, c.allowance)
      : undefined;
    if (used === undefined) {
      return { consumed: false, used: Number(usedNow.get(c.orgId, c.periodStart) ?? 0) };
    }
    recordUsage.run(c.orgId, c.hourStart, c.credits);
    return { consumed: true, used: Number(used) };
  });

  return (c) => (database.inTransaction ? undefined : transaction.immediate(c));
}
