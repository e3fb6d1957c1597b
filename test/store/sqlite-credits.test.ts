import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterEach, expect, test } from "vitest";
import { createKyselyPlanStore } from "../../src/store/kysely-plan-store.js";
import { migrateToLatest } from "../../src/store/migrations/index.js";
import type { CreditConsumption } from "../../src/store/plan-store.js";
import type { Database } from "../../src/store/schema.js";

const HOUR = Date.parse("2026-11-22T10:00:00.000Z");
const CONSUMPTION: CreditConsumption = {
  orgId: "org_tx",
  periodStart: Date.parse("2026-11-01T00:00:00.000Z"),
  periodEnd: Date.parse("2026-12-01T00:00:00.000Z"),
  credits: 1,
  allowance: 10,
  overages: false,
  hourStart: HOUR,
};

let opened: Kysely<Database> | undefined;
afterEach(() => opened?.destroy());

/**
 * The plan store as open-database.ts builds it on SQLite: Kysely and the synchronous credit path on one
 * connection. `foreignKeys` turns SQLite's foreign-key checks on, to make a consumption fail.
 */
async function openPlanStore({ foreignKeys = false } = {}) {
  const connection = new SQLite(":memory:");
  if (foreignKeys) connection.pragma("foreign_keys = ON");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
  opened = db;
  await migrateToLatest(db as Kysely<unknown>);
  await db
    .insertInto("organizations")
    .values({ id: "org_tx", name: "tx", created_at: 1, key_count: 0 })
    .execute();
  return { db, plans: createKyselyPlanStore(db, { sqlite: connection }) };
}

test("a consumption arriving while another transaction is open on the connection is not rolled back with it", async () => {
  const { db, plans } = await openPlanStore();
  let pending: ReturnType<typeof plans.consumeCredits> | undefined;
  const failing = db.transaction().execute(async (trx) => {
    await trx.updateTable("organizations").set({ name: "renamed" }).where("id", "=", "org_tx").execute();
    // Another request consumes a credit between this transaction's statements.
    pending = plans.consumeCredits(CONSUMPTION);
    await new Promise((resolve) => setTimeout(resolve, 5));
    throw new Error("rolled back");
  });
  await expect(failing).rejects.toThrow("rolled back");

  expect(await pending).toEqual({ consumed: true, used: 1 });
  expect(await plans.creditPeriods("org_tx", 12)).toEqual([
    { start: CONSUMPTION.periodStart, end: CONSUMPTION.periodEnd, used: 1 },
  ]);
  expect(await plans.usageHours("org_tx", 0)).toEqual([{ hourStart: HOUR, images: 1 }]);
  const organization = await db.selectFrom("organizations").select("name").executeTakeFirstOrThrow();
  expect(organization.name).toBe("tx");
});

test("refused at the allowance and past it on its own: nothing written, the period's total reported", async () => {
  const { plans } = await openPlanStore();
  expect(await plans.consumeCredits({ ...CONSUMPTION, credits: 10 })).toEqual({ consumed: true, used: 10 });
  expect(await plans.consumeCredits(CONSUMPTION)).toEqual({ consumed: false, used: 10 });
  expect(await plans.consumeCredits({ ...CONSUMPTION, credits: 11 })).toEqual({ consumed: false, used: 10 });
  expect(await plans.usageHours("org_tx", 0)).toEqual([{ hourStart: HOUR, images: 10 }]);
});

test("consumptions asked at once: one that fails is refused alone, the others are consumed and recorded", async () => {
  const { plans } = await openPlanStore({ foreignKeys: true });

  // The middle one names no organization: its foreign key fails, inside the batch's transaction.
  const results = await Promise.allSettled([
    plans.consumeCredits(CONSUMPTION),
    plans.consumeCredits({ ...CONSUMPTION, orgId: "org_missing" }),
    plans.consumeCredits({ ...CONSUMPTION, credits: 2 }),
  ]);
  expect(results[0]).toEqual({ status: "fulfilled", value: { consumed: true, used: 1 } });
  expect(results[1]).toMatchObject({ status: "rejected", reason: { code: "SQLITE_CONSTRAINT_FOREIGNKEY" } });
  expect(results[2]).toEqual({ status: "fulfilled", value: { consumed: true, used: 3 } });
  expect(await plans.creditPeriods("org_tx", 12)).toEqual([
    { start: CONSUMPTION.periodStart, end: CONSUMPTION.periodEnd, used: 3 },
  ]);
  expect(await plans.usageHours("org_tx", 0)).toEqual([{ hourStart: HOUR, images: 3 }]);
  expect(await plans.creditPeriods("org_missing", 12)).toEqual([]);
});
