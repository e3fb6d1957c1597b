import pg from "pg";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { openStores, type Stores } from "../../src/store/open-database.js";
import { createPostgresSchema, type PostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";

const HOUR = 3_600_000;
const PERIOD = { periodStart: 1_000 * HOUR, periodEnd: 1_720 * HOUR };

/** Credits are consumed by one conditional statement each; every backend must give the same answers. */
function creditContract(open: () => Promise<Stores>) {
  let stores: Stores;
  let orgId: string;
  beforeAll(async () => {
    stores = await open();
    orgId = `org_credits${Date.now()}`;
    await stores.keys.createOrganization({ id: orgId, name: "credits", createdAt: 0 });
  });
  afterAll(() => stores?.close());

  const consume = (credits: number, allowance: number, overages = false, hourStart = 1_001 * HOUR) =>
    stores.plans.consumeCredits({ orgId, ...PERIOD, credits, allowance, overages, hourStart });

  test("consumes up to the allowance, refuses past it without consuming, and overages record past it", async () => {
    expect(await consume(3, 5)).toEqual({ consumed: true, used: 3 });
    expect(await consume(2, 5)).toEqual({ consumed: true, used: 5 });
    expect(await consume(1, 5)).toEqual({ consumed: false, used: 5 });
    expect(await consume(4, 5, true, 1_002 * HOUR)).toEqual({ consumed: true, used: 9 });
    expect(await stores.plans.usageHours(orgId, 0)).toEqual([
      { hourStart: 1_001 * HOUR, images: 5 },
      { hourStart: 1_002 * HOUR, images: 4 },
    ]);
    expect(await stores.plans.creditPeriods(orgId, 12)).toEqual([
      { start: PERIOD.periodStart, end: PERIOD.periodEnd, used: 9 },
    ]);
  });

  test("30 concurrent consumers at the boundary take exactly the remaining credits", async () => {
    const other = `${orgId}x`;
    await stores.keys.createOrganization({ id: other, name: "boundary", createdAt: 0 });
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        stores.plans.consumeCredits({
          orgId: other,
          ...PERIOD,
          credits: 1,
          allowance: 10,
          overages: false,
          hourStart: 1_001 * HOUR,
        }),
      ),
    );
    expect(results.filter((r) => r.consumed)).toHaveLength(10);
    expect(await stores.plans.creditPeriods(other, 12)).toEqual([
      { start: PERIOD.periodStart, end: PERIOD.periodEnd, used: 10 },
    ]);
  });
}

describe("credits on SQLite", () => creditContract(() => openStores("sqlite::memory:")));

describeWithServices(["postgres"], "credits on PostgreSQL", (services) => {
  let schema: PostgresSchema;
  beforeAll(async () => {
    schema = await createPostgresSchema(services.postgres);
  });
  afterAll(() => schema?.drop());
  creditContract(() => openStores(schema.url));

  test("a refusal reports the total that refused it, committed while the refusal waited for the row", async () => {
    const stores = await openStores(schema.url);
    const other = new pg.Client({ connectionString: schema.url });
    const watcher = new pg.Client({ connectionString: schema.url });
    await Promise.all([other.connect(), watcher.connect()]);
    try {
      const orgId = `org_refusal${Date.now()}`;
      await stores.keys.createOrganization({ id: orgId, name: "refusal", createdAt: 0 });
      const consume = (credits: number) =>
        stores.plans.consumeCredits({
          orgId,
          ...PERIOD,
          credits,
          allowance: 30,
          overages: false,
          hourStart: 1_001 * HOUR,
        });
      expect(await consume(26)).toEqual({ consumed: true, used: 26 });
      // Another node's consumption holds the period's row: the refusal below starts (its snapshot shows
      // 26), waits for the row, and is refused by the 30 committed meanwhile: it must say 30.
      await other.query("begin");
      await other.query("update credit_periods set used = 30 where org_id = $1", [orgId]);
      const { rows } = await other.query<{ pid: number }>("select pg_backend_pid() as pid");
      const refused = consume(1);
      await vi.waitFor(
        async () => {
          const waiting = await watcher.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))",
            [rows[0]?.pid],
          );
          expect(waiting.rows[0]?.n).toBe(1);
        },
        { timeout: 10_000, interval: 20 },
      );
      await other.query("commit");
      expect(await refused).toEqual({ consumed: false, used: 30 });
    } finally {
      await Promise.all([other.end(), watcher.end()]);
      await stores.close();
    }
  });
});
