import { type Kysely, sql, type SqlBool } from "kysely";
import type { CreditGrant, CreditGrantStore } from "./credit-grant-store.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import { recordIdempotentResponse } from "./kysely-idempotency-store.js";
import type { CreditConsumption, CreditResult } from "./plan-store.js";
import type { CreditGrantsTable, Database } from "./schema.js";
import type { StoreDialect } from "./dialect.js";
import { enqueueCrossedThresholds } from "./webhook-outbox.js";

const toGrant = (row: CreditGrantsTable): CreditGrant => ({
  id: row.id,
  orgId: row.org_id,
  credits: Number(row.credits),
  remaining: Number(row.remaining),
  expiresAt: row.expires_at === null ? null : Number(row.expires_at),
  reason: row.reason,
  createdAt: Number(row.created_at),
});

export function createKyselyCreditGrantStore(db: Kysely<Database>): CreditGrantStore {
  return {
    async insertCreditGrant(grant, audit, response) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto("credit_grants")
          .values({
            id: grant.id,
            org_id: grant.orgId,
            credits: grant.credits,
            remaining: grant.remaining,
            expires_at: grant.expiresAt,
            reason: grant.reason,
            created_at: grant.createdAt,
          })
          .execute();
        await insertAuditEntry(trx, audit?.(undefined, grant));
        await recordIdempotentResponse(trx, response);
      });
    },

    async listCreditGrants(orgId, { limit, after }) {
      let select = db.selectFrom("credit_grants").selectAll().where("org_id", "=", orgId);
      if (after) select = select.where(sql<SqlBool>`(created_at, id) < (${after.createdAt}, ${after.id})`);
      const rows = await select.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
      return rows.map(toGrant);
    },
  };
}

/**
 * Consumes `c.credits` from what is left of the period's allowance and then from the organization's
 * grants usable at `now` (soonest expiry first, then oldest), all or nothing, in one transaction: the
 * period's row is locked first (PostgreSQL, `dialect.lockRows`; SQLite has one writer), then the grants, so
 * concurrent consumers on any node never take a credit twice. The period's `used` counts every credit
 * consumed in it, from the allowance or a grant. Called only once the allowance alone refused.
 */
export async function consumeWithGrants(
  db: Kysely<Database>,
  c: CreditConsumption,
  now: number,
  dialect: StoreDialect,
): Promise<CreditResult> {
  return db.transaction().execute(async (trx) => {
    // Creates the period's row if needed and locks it, changing nothing.
    const period = await sql<{
      used: number | string;
    }>`insert into credit_periods (org_id, period_start, period_end, used)
      values (${c.orgId}, ${c.periodStart}, ${c.periodEnd}, 0)
      on conflict (org_id, period_start) do update set used = credit_periods.used
      returning used`.execute(trx);
    const used = Number(period.rows[0]?.used ?? 0);
    const fromAllowance = Math.max(0, Math.min(c.credits, c.allowance - used));
    let needed = c.credits - fromAllowance;
    let usable = trx
      .selectFrom("credit_grants")
      .select(["id", "remaining"])
      .where("org_id", "=", c.orgId)
      .where("remaining", ">", 0)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
      .orderBy(sql`case when expires_at is null then 1 else 0 end`)
      .orderBy("expires_at")
      .orderBy("created_at")
      .orderBy("id");
    usable = dialect.lockRows(usable);
    const grants = await usable.execute();
    if (grants.reduce((sum, grant) => sum + Number(grant.remaining), 0) < needed)
      return { consumed: false, used };
    for (const grant of grants) {
      if (needed === 0) break;
      const taken = Math.min(needed, Number(grant.remaining));
      await trx
        .updateTable("credit_grants")
        .set({ remaining: sql`remaining - ${taken}` })
        .where("id", "=", grant.id)
        .execute();
      needed -= taken;
    }
    await trx
      .updateTable("credit_periods")
      .set({ used: sql`used + ${c.credits}` })
      .where("org_id", "=", c.orgId)
      .where("period_start", "=", c.periodStart)
      .execute();
    await sql`insert into usage_hours (org_id, hour_start, images) values (${c.orgId}, ${c.hourStart}, ${c.credits})
      on conflict (org_id, hour_start) do update set images = usage_hours.images + excluded.images`.execute(
      trx,
    );
    await enqueueCrossedThresholds(trx, c, used, used + c.credits);
    return { consumed: true, used: used + c.credits };
  });
}
