import { CompiledQuery, type Kysely, sql } from "kysely";
import type { PlanChanges, PlanStore } from "./plan-store.js";
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

const CREDIT_PARAMETERS: ReadonlySet<string> = new Set([
  "orgId",
  "periodStart",
  "periodEnd",
  "credits",
  "allowance",
  "hourStart",
]);
type CreditParameter = "orgId" | "periodStart" | "periodEnd" | "credits" | "allowance" | "hourStart";

/**
 * A query compiled once with each parameter named by a placeholder value; a call binds the real
 * values in the compiled order. Building and compiling the credit statements on every metered request
 * cost more than running them (bench/README.md).
 */
function compiledOnce(query: { compile(): CompiledQuery }) {
  const { sql: text, parameters } = query.compile();
  const bind = parameters.map((parameter) =>
    typeof parameter === "string" && CREDIT_PARAMETERS.has(parameter)
      ? (values: Record<CreditParameter, unknown>) => values[parameter as CreditParameter]
      : () => parameter,
  );
  return (values: Record<CreditParameter, unknown>) =>
    CompiledQuery.raw(
      text,
      bind.map((value) => value(values)),
    );
}

/** The statements of one credit consumption, compiled once per dialect. */
function creditStatements(db: Kysely<Database>) {
  // Placeholders: each stands for the parameter of the same name when the statement runs.
  const p = (name: CreditParameter) => name as unknown as number;
  const s = (name: CreditParameter) => name;
  const consume = (withinAllowance: boolean) =>
    compiledOnce(
      db
        .updateTable("credit_periods")
        .set({ used: sql`used + ${p("credits")}` })
        .where("org_id", "=", s("orgId"))
        .where("period_start", "=", p("periodStart"))
        .where(
          withinAllowance ? sql<boolean>`used + ${p("credits")} <= ${p("allowance")}` : sql<boolean>`1 = 1`,
        )
        .returning("used"),
    );
  return {
    openPeriod: compiledOnce(
      db
        .insertInto("credit_periods")
        .values({ org_id: s("orgId"), period_start: p("periodStart"), period_end: p("periodEnd"), used: 0 })
        .onConflict((oc) => oc.columns(["org_id", "period_start"]).doNothing()),
    ),
    consumeWithinAllowance: consume(true),
    consumeWithOverages: consume(false),
    periodUsed: compiledOnce(
      db
        .selectFrom("credit_periods")
        .select("used")
        .where("org_id", "=", s("orgId"))
        .where("period_start", "=", p("periodStart")),
    ),
    recordHour: compiledOnce(
      db
        .insertInto("usage_hours")
        .values({ org_id: s("orgId"), hour_start: p("hourStart"), images: p("credits") })
        .onConflict((oc) =>
          oc
            .columns(["org_id", "hour_start"])
            .doUpdateSet({ images: sql`usage_hours.images + ${p("credits")}` }),
        ),
    ),
  };
}

/** The PlanStore over Kysely: the same statements on SQLite and PostgreSQL. */
export function createKyselyPlanStore(db: Kysely<Database>): PlanStore {
  const credit = creditStatements(db);
  return {
    async getPlan(orgId) {
      const row = await db
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
        .where("id", "=", orgId)
        .executeTakeFirst();
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
    },

    async setPlan(orgId, changes) {
      const columns = planColumns(changes);
      if (Object.keys(columns).length === 0) return;
      await db.updateTable("organizations").set(columns).where("id", "=", orgId).execute();
    },

    async consumeCredits(c) {
      const values: Record<CreditParameter, unknown> = {
        orgId: c.orgId,
        periodStart: c.periodStart,
        periodEnd: c.periodEnd,
        credits: c.credits,
        allowance: c.allowance,
        hourStart: c.hourStart,
      };
      return db.transaction().execute(async (trx) => {
        await trx.executeQuery(credit.openPeriod(values));
        // The check and the increment are one statement: on PostgreSQL the row lock serializes
        // concurrent consumers and the WHERE is re-evaluated against the committed total, so the
        // allowance can never be passed by one credit; SQLite's single writer gives the same.
        const consume = c.overages ? credit.consumeWithOverages : credit.consumeWithinAllowance;
        const { rows } = await trx.executeQuery<{ used: number }>(consume(values));
        const consumed = rows[0];
        if (!consumed) {
          const current = (await trx.executeQuery<{ used: number }>(credit.periodUsed(values))).rows[0];
          return { consumed: false, used: Number(current?.used ?? 0) };
        }
        await trx.executeQuery(credit.recordHour(values));
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
