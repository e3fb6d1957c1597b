import type { Database as SqliteConnection } from "better-sqlite3";
import type { Kysely } from "kysely";
import { consumeCreditsPostgres, consumeCreditsSqlite } from "./consume-credits.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import type { CreditConsumption, CreditResult, PlanChanges, PlanStore, StoredPlan } from "./plan-store.js";
import type { Database, OrganizationsTable } from "./schema.js";
import { batchedCredits } from "./credit-batches.js";
import { createSqliteCreditConsumer } from "./sqlite-credits.js";
import { consumeWithGrants } from "./kysely-credit-grants.js";
import { SQLITE, type StoreDialect } from "./dialect.js";

function flag(value: number | null): boolean | null {
  return value === null ? null : Number(value) === 1;
}

function flagColumn(value: boolean | null): number | null {
  return value === null ? null : value ? 1 : 0;
}

/** The organization row's columns of a plan change (also written by an organization's create). */
export function planColumns(changes: PlanChanges): Partial<OrganizationsTable> {
  const columns: Partial<OrganizationsTable> = {};
  if (changes.imageCredits !== undefined) columns.image_credits = changes.imageCredits;
  if (changes.overages !== undefined) columns.overages = flagColumn(changes.overages);
  if (changes.periodAnchor !== undefined) columns.period_anchor = changes.periodAnchor;
  if (changes.maxBatchSize !== undefined) columns.max_batch_size = changes.maxBatchSize;
  if (changes.proxies !== undefined) columns.proxies_enabled = flagColumn(changes.proxies);
  if (changes.storageDestinations !== undefined) {
    columns.storage_destinations_enabled = flagColumn(changes.storageDestinations);
  }
  if (changes.creditThresholds !== undefined) {
    columns.credit_thresholds =
      changes.creditThresholds === null ? null : JSON.stringify(changes.creditThresholds);
  }
  return columns;
}

/** The stored plan of one organization, read with `db` (the store's connection or a transaction). */
async function readPlan(
  db: Kysely<Database>,
  orgId: string,
  lock?: StoreDialect,
): Promise<StoredPlan | undefined> {
  const select = db
    .selectFrom("organizations")
    .select([
      "created_at",
      "image_credits",
      "overages",
      "period_anchor",
      "max_batch_size",
      "proxies_enabled",
      "storage_destinations_enabled",
      "credit_thresholds",
    ])
    .where("id", "=", orgId);
  const row = await (lock ? lock.lockRows(select) : select).executeTakeFirst();
  if (!row) return undefined;
  return {
    imageCredits: row.image_credits === null ? null : Number(row.image_credits),
    overages: flag(row.overages),
    periodAnchor: row.period_anchor === null ? null : Number(row.period_anchor),
    maxBatchSize: row.max_batch_size === null ? null : Number(row.max_batch_size),
    proxies: flag(row.proxies_enabled),
    storageDestinations: flag(row.storage_destinations_enabled),
    creditThresholds: row.credit_thresholds ? (JSON.parse(row.credit_thresholds) as number[]) : null,
    organizationCreatedAt: Number(row.created_at),
  };
}

/**
 * The PlanStore over Kysely: the same statements on SQLite and PostgreSQL, except that on PostgreSQL
 * (`dialect`) a plan change locks the organization row (`FOR UPDATE`; SQLite has one writer) and
 * a consumption is one statement. Given the better-sqlite3 connection under `db` (`sqlite`), credits are
 * consumed on it directly, synchronously, those of the requests let go together in one event-loop turn
 * in one transaction (sqlite-credits.ts, credit-batches.ts).
 */
export function createKyselyPlanStore(
  db: Kysely<Database>,
  { dialect = SQLITE, sqlite }: { dialect?: StoreDialect; sqlite?: SqliteConnection | undefined } = {},
): PlanStore {
  const consumeSoon = sqlite ? batchedCredits(createSqliteCreditConsumer(sqlite)) : undefined;

  async function consumeCredits(c: CreditConsumption): Promise<CreditResult> {
    if (dialect.name === "postgres") return consumeCreditsPostgres(db, c);
    return (await consumeSoon?.(c)) ?? consumeCreditsSqlite(db, c);
  }

  return {
    getPlan: (orgId) => readPlan(db, orgId),

    async setPlan(orgId, changes, audit) {
      return db.transaction().execute(async (trx) => {
        // Locks the organization row (PostgreSQL), so the recorded "before" is what this change replaced.
        const before = await readPlan(trx, orgId, dialect);
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

    consumeCredits,

    consumeWithGrants: (c, now) => consumeWithGrants(db, c, now, dialect),

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
