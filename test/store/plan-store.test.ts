import { describe, expect, onTestFinished, test } from "vitest";
import { openStores, type Stores } from "../../src/store/open-database.js";
import type { CreditConsumption } from "../../src/store/plan-store.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";

const HOUR = Date.parse("2026-11-22T10:00:00.000Z");
const PERIOD = {
  periodStart: Date.parse("2026-11-01T00:00:00.000Z"),
  periodEnd: Date.parse("2026-12-01T00:00:00.000Z"),
};

/** The credit contract, the same on every database: exact, all or nothing, and a refusal writes nothing. */
function planStoreContract(open: () => Promise<Stores>) {
  async function withOrganization() {
    const stores = await open();
    onTestFinished(() => stores.close());
    await stores.keys.createOrganization({ id: "org_credits", name: "credits", createdAt: 1 });
    const consume = (credits: number, allowance: number, overages = false) =>
      stores.plans.consumeCredits({
        orgId: "org_credits",
        ...PERIOD,
        credits,
        allowance,
        overages,
        hourStart: HOUR,
      } satisfies CreditConsumption);
    return { stores, consume };
  }

  test("credits are consumed whole while they fit, and a refusal consumes nothing", async () => {
    const { stores, consume } = await withOrganization();
    expect(await consume(2, 3)).toEqual({ consumed: true, used: 2 });
    expect(await consume(2, 3)).toEqual({ consumed: false, used: 2 });
    expect(await consume(1, 3)).toEqual({ consumed: true, used: 3 });
    expect(await consume(1, 3)).toEqual({ consumed: false, used: 3 });
    expect(await stores.plans.creditPeriods("org_credits", 12)).toEqual([
      { start: PERIOD.periodStart, end: PERIOD.periodEnd, used: 3 },
    ]);
    expect(await stores.plans.usageHours("org_credits", 0)).toEqual([{ hourStart: HOUR, images: 3 }]);
  });

  test("a first request larger than the allowance, or an allowance of 0, writes no row", async () => {
    const { stores, consume } = await withOrganization();
    expect(await consume(5, 4)).toEqual({ consumed: false, used: 0 });
    expect(await consume(1, 0)).toEqual({ consumed: false, used: 0 });
    expect(await stores.plans.creditPeriods("org_credits", 12)).toEqual([]);
    expect(await stores.plans.usageHours("org_credits", 0)).toEqual([]);
  });

  test("overages: past the allowance, allowed and recorded", async () => {
    const { stores, consume } = await withOrganization();
    expect(await consume(3, 2, true)).toEqual({ consumed: true, used: 3 });
    expect(await consume(4, 2, true)).toEqual({ consumed: true, used: 7 });
    expect(await stores.plans.usageHours("org_credits", 0)).toEqual([{ hourStart: HOUR, images: 7 }]);
  });

  test("50 concurrent consumers of 1 against 20: exactly 20", async () => {
    const { stores, consume } = await withOrganization();
    const results = await Promise.all(Array.from({ length: 50 }, () => consume(1, 20)));
    expect(results.filter((r) => r.consumed)).toHaveLength(20);
    expect((await stores.plans.creditPeriods("org_credits", 1))[0]?.used).toBe(20);
    expect(await stores.plans.usageHours("org_credits", 0)).toEqual([{ hourStart: HOUR, images: 20 }]);
  });
}

describe("plan store on SQLite", () => {
  planStoreContract(() => openStores("sqlite::memory:"));
});

describeWithServices(["postgres"], "plan store on PostgreSQL", ({ postgres }) => {
  planStoreContract(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    return openStores(schema.url);
  });
});
