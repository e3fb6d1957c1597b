import { describe, expect, onTestFinished, test } from "vitest";
import { openStores, type Stores } from "../../src/store/open-database.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";

/** The usage export's records on both databases (docs/usage-export.md). */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T = Date.parse("2026-11-22T00:00:00Z");

function usageExportStoreContract(open: () => Promise<Stores>) {
  async function withOrganizations(): Promise<Stores> {
    const stores = await open();
    for (const [id, externalId] of [
      ["org_b", null],
      ["org_a", "cus_a"],
      ["org_c", null],
    ] as const) {
      await stores.organizations.insertOrganization(
        {
          id,
          name: id,
          externalId,
          disabledAt: null,
          createdAt: T,
          updatedAt: T,
        },
        {},
      );
    }
    return stores;
  }

  test("decision counts add up across writes (two nodes) and merge with images per bucket", async () => {
    const stores = await withOrganizations();
    const node = [
      { orgId: "org_a", hourStart: T + HOUR, allowed: 3, refused: 1 },
      { orgId: "org_a", hourStart: T + 2 * HOUR, allowed: 1, refused: 0 },
    ];
    await Promise.all([stores.usageExport.addDecisions(node), stores.usageExport.addDecisions(node)]);
    await stores.plans.consumeCredits({
      orgId: "org_a",
      periodStart: T,
      periodEnd: T + 30 * DAY,
      credits: 4,
      allowance: 100,
      overages: false,
      hourStart: T + HOUR,
    });
    const range = { from: T, to: T + DAY, bucketMs: HOUR };
    expect(await stores.usageExport.usageBuckets(["org_a", "org_b"], range)).toEqual([
      { orgId: "org_a", bucketStart: T + HOUR, images: 4, allowed: 6, refused: 2 },
      { orgId: "org_a", bucketStart: T + 2 * HOUR, images: 0, allowed: 2, refused: 0 },
    ]);
    expect(await stores.usageExport.usageBuckets(["org_a"], { ...range, bucketMs: DAY })).toEqual([
      { orgId: "org_a", bucketStart: T, images: 4, allowed: 8, refused: 2 },
    ]);
    // `to` is exclusive, and other organizations' rows are not read.
    expect(
      await stores.usageExport.usageBuckets(["org_a"], { from: T, to: T + HOUR, bucketMs: HOUR }),
    ).toEqual([]);
    expect(await stores.usageExport.usageBuckets(["org_b", "org_c"], range)).toEqual([]);
  });

  test("organizations come in id order, a page at a time, with external_id", async () => {
    const stores = await withOrganizations();
    expect(await stores.usageExport.organizationsAfter(undefined, 2)).toEqual([
      { id: "org_a", externalId: "cus_a" },
      { id: "org_b", externalId: null },
    ]);
    expect(await stores.usageExport.organizationsAfter("org_b", 2)).toEqual([
      { id: "org_c", externalId: null },
    ]);
  });
}

describe("UsageExportStore on SQLite", () => {
  usageExportStoreContract(async () => {
    const stores = await openStores("sqlite::memory:");
    onTestFinished(() => stores.close());
    return stores;
  });
});

describeWithServices(["postgres"], "UsageExportStore on PostgreSQL", ({ postgres }) => {
  usageExportStoreContract(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const stores = await openStores(schema.url);
    onTestFinished(() => stores.close());
    return stores;
  });
});
