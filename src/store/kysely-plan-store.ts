import { type Kysely, sql } from "kysely";
import { insertAuditEntry } from "./kysely-audit-store.js";
import type { PlanChanges, PlanStore, StoredPlan } from "./plan-store.js";
import type { Database, OrganizationsTable } from "./schema.js";

function flag(value: number | null): boolean | null {
  return value === null ? null : Number(value) === 1;
}

function flagColumn(value: boolean | null): number | null {
  return value === null ? null : value ? 1 : 0;
}

function planColumns(changes: PlanChanges): Partial<OrganizationsTable> {
  const columns: Partial<OrganizationsTable> = {};
  if (changes.imageCredits !== undefined) columns.image_credits = changes.imageCredits;
  if (changes.overages !== undefined) columns.overages = flagColumn(changes.overages);
  if (changes.periodAnchor !== undefined) columns.period_anchor = changes.periodAnchor;
  if (changes.maxBatchSize !== undefined) columns.max_batch_size = changes.maxBatchSize;
  if (changes.proxies !== undefined) columns.proxies_enabled = flagColumn(changes.proxies);
  if (changes.storageDestinations !== undefined) {
    columns.storage_destinations_enabled = flagColumn(changes.storageDestinations);
  }
  return columns;
}

/** The stored plan of one organization, read with `db` (the store's connection or a transaction). */
async function readPlan(db: Kysely<Database>, orgId: string, lock = false): Promise<StoredPlan | undefined> {
  let select = db
    .selectFrom("organizations")
    .select([
      "created_at",
      "image_credits",
      "overages",
      "period_anchor",
      "max_batch_size",
      "proxies_enabled",
      "storage_destinations_enabled",
    ])
    .where("id", "=", orgId);
  if (lock) select = select.forUpdate();
  const row = await select.executeTakeFirst();
  if (!row) return undefined;
  return {
    imageCredits: row.image_credits === null ? null : Number(row.image_credits),
    overages: flag(row.overages),
    periodAnchor: row.period_anchor === null ? null : Number(row.period_anchor),
    maxBatchSize: row.max_batch_size === null ? null : Number(row.max_batch_size),
    proxies: flag(row.proxies_enabled),
    storageDestinations: flag(row.storage_destinations_enabled),
    organizationCreatedAt: Number(row.created_at),
  };
}

/**
 * The PlanStore over Kysely: the same statements on SQLite and PostgreSQL. `rowLocks` as for the key
 * store: PostgreSQL takes `FOR UPDATE` locks, SQLite (one writer) needs none.
 */
export function createKyselyPlanStore(db: Kysely<Database>, rowLocks = false): PlanStore {
  return {
    getPlan: (orgId) => readPlan(db, orgId),

    async setPlan(orgId, changes, audit) {
      return db.transaction().execute(async (trx) => {
        // Locks the organization row (PostgreSQL), so the recorded "before" is what this change replaced.
        const before = await readPlan(trx, orgId, rowLocks);
        if (!before) return false;
        const columns = planColumns(changes);
        // Showing a plan (no changes) writes nothing, so it records nothing either.
        if (Object.keys(columns).length === 0) return true;
        await trx.updateTable("organizations").set(columns).where("id", "=", orgId).execute();
        const after = await readPlan(trx, orgId);
        if (after) await insertAuditEntry(trx, audit?.(before, after));
        return true;
      });
    },

    async consumeCredits(c) {
      return db.transaction().execute(async (trx) => {
        await trx
          .insertInto("credit_periods")
          .values({ org_id: c.orgId, period_start: c.periodStart, period_end: c.periodEnd, used: 0 })
          .onConflict((oc) => oc.columns(["org_id", "period_start"]).doNothing())
          .execute();
        // The check and the increment are one statement: on PostgreSQL the row lock serializes
        // concurrent consumers and the WHERE is re-evaluated against the committed total, so the
        // allowance can never be passed by one credit; SQLite's single writer gives the same.
        const consumed = await trx
          .updateTable("credit_periods")
          .set({ used: sql`used + ${c.credits}` })
          .where("org_id", "=", c.orgId)
          .where("period_start", "=", c.periodStart)
          .where(c.overages ? sql<boolean>`1 = 1` : sql<boolean>`used + ${c.credits} <= ${c.allowance}`)
          .returning("used")
          .executeTakeFirst();
        if (!consumed) {
          const current = await trx
            .selectFrom("credit_periods")
            .select("used")
            .where("org_id", "=", c.orgId)
            .where("period_start", "=", c.periodStart)
            .executeTakeFirst();
          return { consumed: false, used: Number(current?.used ?? 0) };
        }
        await trx
          .insertInto("usage_hours")
          .values({ org_id: c.orgId, hour_start: c.hourStart, images: c.credits })
          .onConflict((oc) =>
            oc
              .columns(["org_id", "hour_start"])
              .doUpdateSet({ images: sql`usage_hours.images + ${c.credits}` }),
          )
          .execute();
        return { consumed: true, used: Number(consumed.used) };
      });
    },

    async creditPeriods(orgId, limit) {
      const rows = await db
        .selectFrom("credit_periods")
        .select(["period_start", "period_end", "used"])
        .where("org_id", "=", orgId)
        .orderBy("period_start", "desc")
        .limit(limit)
        .execute();
      return rows
        .map((row) => ({
          start: Number(row.period_start),
          end: Number(row.period_end),
          used: Number(row.used),
        }))
        .reverse();
    },

    async usageHours(orgId, since) {
      const rows = await db
        .selectFrom("usage_hours")
        .select(["hour_start", "images"])
        .where("org_id", "=", orgId)
        .where("hour_start", ">=", since)
        .orderBy("hour_start", "asc")
        .execute();
      return rows.map((row) => ({ hourStart: Number(row.hour_start), images: Number(row.images) }));
    },
  };
}
