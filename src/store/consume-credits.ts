import { type Kysely, type RawBuilder, sql } from "kysely";
import type { CreditConsumption, CreditResult } from "./plan-store.js";
import type { Database } from "./schema.js";
import { thresholdOutbox } from "./threshold-outbox-postgres.js";
import { enqueueCrossedThresholds } from "./webhook-outbox.js";

/**
 * The conditional upsert of a period's credits: it creates the period's row with the request's credits,
 * or adds them to it, and in both cases only while the total stays within the allowance (unless
 * overages are on). It returns the new total, or no row when refused. The check and the increment are
 * one statement: on PostgreSQL `ON CONFLICT DO UPDATE` locks the row and evaluates its WHERE against the
 * latest committed total, so concurrent consumers on any number of nodes can never pass the allowance;
 * SQLite's single writer gives the same. A refused request writes nothing.
 */
function conditionalUpsert(c: CreditConsumption): RawBuilder<unknown> {
  const fits = c.overages || c.credits <= c.allowance ? 1 : 0;
  const stillFits = c.overages ? sql`` : sql`where credit_periods.used + excluded.used <= ${c.allowance}`;
  // Casts give PostgreSQL the parameters' types in a SELECT without a table; SQLite accepts them too.
  return sql`insert into credit_periods (org_id, period_start, period_end, used)
    select cast(${c.orgId} as text), cast(${c.periodStart} as bigint), cast(${c.periodEnd} as bigint),
      cast(${c.credits} as integer)
    where 1 = ${fits}
    on conflict (org_id, period_start) do update set used = credit_periods.used + excluded.used
    ${stillFits}
    returning used`;
}

function recordUsage(c: CreditConsumption, from: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`insert into usage_hours (org_id, hour_start, images)
    select cast(${c.orgId} as text), cast(${c.hourStart} as bigint), cast(${c.credits} as integer) ${from}
    on conflict (org_id, hour_start) do update set images = usage_hours.images + excluded.images`;
}

async function usedNow(db: Kysely<Database>, c: CreditConsumption): Promise<number> {
  const row = await db
    .selectFrom("credit_periods")
    .select("used")
    .where("org_id", "=", c.orgId)
    .where("period_start", "=", c.periodStart)
    .executeTakeFirst();
  return Number(row?.used ?? 0);
}

/**
 * PostgreSQL: the consumption and its usage record are ONE statement (data-modifying CTEs), so the
 * period's row stays locked only for that statement. With a transaction of several round trips, a
 * burst on one organization queued on the row lock while holding pool connections, and requests
 * failed waiting for a connection.
 */
export async function consumeCreditsPostgres(
  db: Kysely<Database>,
  c: CreditConsumption,
): Promise<CreditResult> {
  // A refusal reads the period's total in the same statement, with a row lock (`for share`): the
  // snapshot of a statement is taken at its start, so a plain read gave the total before a consumption
  // committed while this one waited for the row, not the total that refused it (26 of 30 where 30 were
  // used). Locking the row reads its latest version, the one the conflict clause refused on, and this
  // transaction already holds that row's lock, so no other total can come between.
  const { rows } = await sql<{
    used: number | string;
    consumed: number;
  }>`with consumed as (${conditionalUpsert(c)}),
    recorded as (${recordUsage(c, sql`from consumed`)}),${thresholdOutbox(c)}
    refusedAt as (select used from credit_periods
      where org_id = ${c.orgId} and period_start = ${c.periodStart} and not exists (select 1 from consumed)
      for share)
    select used, 1 as consumed from consumed
    union all
    select used, 0 as consumed from refusedAt`.execute(db);
  const row = rows[0];
  if (row) return { consumed: row.consumed === 1, used: Number(row.used) };
  // Refused with no row this statement could see: the period's row was created after it started (or
  // not at all). A new statement sees it: the one case that takes a second round trip.
  return { consumed: false, used: await usedNow(db, c) };
}

/**
 * SQLite (no data-modifying CTEs): the same two statements in one transaction of its single writer.
 * The server's stores consume through sqlite-credits.ts instead (prepared once, synchronous) and come
 * here only while another Kysely transaction is open on the connection.
 */
export async function consumeCreditsSqlite(
  db: Kysely<Database>,
  c: CreditConsumption,
): Promise<CreditResult> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await conditionalUpsert(c).execute(trx);
    const consumed = rows[0] as { used: number } | undefined;
    if (!consumed) return { consumed: false, used: await usedNow(trx, c) };
    // `where true` keeps SQLite's parser from reading ON CONFLICT as part of the SELECT.
    await recordUsage(c, sql`where true`).execute(trx);
    const used = Number(consumed.used);
    await enqueueCrossedThresholds(trx, c, used - c.credits, used);
    return { consumed: true, used };
  });
}
