import { afterAll, beforeAll, describe, expect, test } from "vitest";
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
});
