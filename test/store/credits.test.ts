import pg from "pg";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { openStores, type Stores } from "../../src/store/open-database.js";
import type { WebhookEndpoint } from "../../src/store/webhook-store.js";
import { createPostgresSchema, type PostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";

const HOUR = 3_600_000;
const PERIOD = { periodStart: 1_000 * HOUR, periodEnd: 1_720 * HOUR };

const AT = 1_001 * HOUR + 5;

/** An organization's endpoint subscribed to credit alerts, stored as the endpoint service would. */
async function listenTo(stores: Stores, orgId: string): Promise<void> {
  const endpoint: WebhookEndpoint = {
    id: `whe_${orgId.slice(4)}`,
    orgId,
    url: "https://93.184.215.14/hooks",
    events: ["credits.threshold_reached"],
    description: null,
    enabled: true,
    secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1Xd7ZkG2Jk0=",
    previousSecret: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    createdAt: 0,
    updatedAt: 0,
  };
  await stores.webhooks.insertEndpoint(endpoint, 20);
}

/** The threshold events in the outbox for `orgId`, as the dispatcher would claim them. */
async function thresholdEvents(stores: Stores, orgId: string): Promise<Record<string, unknown>[]> {
  const due = await stores.webhooks.claimDue(AT + 1, 60_000, 100);
  return due
    .filter((d) => d.message.orgId === orgId && d.message.type === "credits.threshold_reached")
    .map((d) => JSON.parse(d.message.data) as Record<string, unknown>)
    .sort((a, b) => Number(a.threshold) - Number(b.threshold));
}

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

  test("a consumption that crosses a plan threshold writes its event with it, once per threshold and period", async () => {
    const alerted = `${orgId}a`;
    await stores.keys.createOrganization({ id: alerted, name: "alerted", createdAt: 0 });
    await listenTo(stores, alerted);
    const alerts = { thresholds: [50, 80, 100], at: AT };
    const take = (credits: number, overages = false) =>
      stores.plans.consumeCredits({
        orgId: alerted,
        ...PERIOD,
        credits,
        allowance: 10,
        overages,
        hourStart: 1_001 * HOUR,
        alerts,
      });
    expect(await take(4)).toEqual({ consumed: true, used: 4 });
    expect(await thresholdEvents(stores, alerted)).toEqual([]);
    expect((await take(4)).used).toBe(8); // crosses 50% and 80% at once
    expect((await take(3)).consumed).toBe(false); // refused: nothing written
    expect((await take(1)).used).toBe(9);
    expect((await take(1)).used).toBe(10); // 100%
    expect((await take(2, true)).used).toBe(12); // past it with overages: nothing new
    const periodEnd = new Date(PERIOD.periodEnd).toISOString();
    expect(await thresholdEvents(stores, alerted)).toEqual([
      { organization_id: alerted, threshold: 50, allowance: 10, period_end: periodEnd, used: 8 },
      { organization_id: alerted, threshold: 80, allowance: 10, period_end: periodEnd, used: 8 },
      { organization_id: alerted, threshold: 100, allowance: 10, period_end: periodEnd, used: 10 },
    ]);
  });

  test("past the allowance, a consumption served by a credit grant crosses 100% in its own transaction", async () => {
    const topped = `${orgId}g`;
    await stores.keys.createOrganization({ id: topped, name: "topped", createdAt: 0 });
    await listenTo(stores, topped);
    await stores.creditGrants.insertCreditGrant({
      id: `cgr_${topped.slice(4)}`,
      orgId: topped,
      credits: 10,
      remaining: 10,
      expiresAt: null,
      reason: null,
      createdAt: 0,
    });
    const c = { orgId: topped, ...PERIOD, allowance: 10, overages: false, hourStart: 1_001 * HOUR };
    const alerts = { thresholds: [100], at: AT };
    expect((await stores.plans.consumeCredits({ ...c, credits: 9, alerts })).used).toBe(9);
    const refused = await stores.plans.consumeCredits({ ...c, credits: 3, alerts });
    expect(refused.consumed).toBe(false);
    expect(await stores.plans.consumeWithGrants({ ...c, credits: 3, alerts }, AT)).toEqual({
      consumed: true,
      used: 12,
    });
    expect(await thresholdEvents(stores, topped)).toMatchObject([{ threshold: 100, used: 12 }]);
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

  test("many consumers crossing 80% at once write exactly one event", async () => {
    const stores = await openStores(schema.url);
    try {
      const orgId = `org_race${Date.now()}`;
      await stores.keys.createOrganization({ id: orgId, name: "race", createdAt: 0 });
      await listenTo(stores, orgId);
      const consume = () =>
        stores.plans.consumeCredits({
          orgId,
          ...PERIOD,
          credits: 1,
          allowance: 100,
          overages: false,
          hourStart: 1_001 * HOUR,
          alerts: { thresholds: [80], at: AT },
        });
      for (let i = 0; i < 70; i++) await consume();
      const results = await Promise.all(Array.from({ length: 30 }, consume));
      expect(results.every((r) => r.consumed)).toBe(true);
      const events = await thresholdEvents(stores, orgId);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ threshold: 80, used: 80 });
    } finally {
      await stores.close();
    }
  });

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
