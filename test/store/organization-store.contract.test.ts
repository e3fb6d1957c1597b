import { describe, expect, onTestFinished, test } from "vitest";
import { openStores, type Stores } from "../../src/store/open-database.js";
import type { OrganizationRecord } from "../../src/store/organization-store.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";

/** The provisioning API's organizations on both databases (docs/provisioning.md). */
function organizationStoreContract(open: () => Promise<Stores>) {
  const org = (
    id: string,
    name: string,
    createdAt: number,
    externalId: string | null = null,
  ): OrganizationRecord => ({
    id: `org_${id}`,
    name,
    externalId,
    disabledAt: null,
    createdAt,
    updatedAt: createdAt,
  });

  test("an organization starts with its plan and stacked overrides, in one transaction", async () => {
    const stores = await open();
    await stores.organizations.insertOrganization(org("a", "acme", 1000, "cus_1"), {
      plan: { imageCredits: 700, overages: true },
      limits: {
        "api-key:read": {
          policies: [
            { quota: 5, windowSeconds: 1 },
            { quota: 50, windowSeconds: 60 },
          ],
          per: "key",
        },
      },
    });
    expect(await stores.organizations.getOrganization("org_a")).toEqual(org("a", "acme", 1000, "cus_1"));
    expect(await stores.plans.getPlan("org_a")).toMatchObject({ imageCredits: 700, overages: true });
    expect((await stores.keys.getLimits("org_a")).overrides?.["api-key:read"]).toEqual({
      quota: 5,
      policies: [
        { quota: 5, windowSeconds: 1 },
        { quota: 50, windowSeconds: 60 },
      ],
      per: "key",
    });
  });

  test("a name (any case) or external_id taken: 409, nothing written; racing inserts keep one", async () => {
    const stores = await open();
    await stores.organizations.insertOrganization(org("a", "acme", 1000, "cus_1"), {});
    await expect(
      stores.organizations.insertOrganization(org("b", "other", 1001, "cus_1"), {
        plan: { imageCredits: 1 },
      }),
    ).rejects.toMatchObject({ code: "external_id_taken" });
    await expect(stores.organizations.insertOrganization(org("c", "ACME", 1002), {})).rejects.toMatchObject({
      code: "organization_name_taken",
    });
    expect(await stores.organizations.getOrganization("org_b")).toBeUndefined();
    const raced = await Promise.allSettled(
      ["x1", "x2", "x3", "x4"].map((id, i) =>
        stores.organizations.insertOrganization(org(id, `racer ${id}`, 2000 + i, "cus_race"), {}),
      ),
    );
    expect(raced.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of raced) {
      if (result.status === "rejected") expect(result.reason).toMatchObject({ code: "external_id_taken" });
    }
  });

  test("pages newest first without repeats or gaps; name_prefix and external_id filter", async () => {
    const stores = await open();
    const names = ["acme", "acorn", "Acme B", "beta", "acme é", "zeta"];
    for (const [i, name] of names.entries()) {
      await stores.organizations.insertOrganization(
        org(`n${i}`, name, 1000 + Math.floor(i / 2), `c${i}`),
        {},
      );
    }
    const seen: string[] = [];
    let after: { createdAt: number; id: string } | undefined;
    for (;;) {
      const page = await stores.organizations.listOrganizations({ limit: 4, after });
      seen.push(...page.map((found) => found.name));
      const last = page.at(-1);
      if (page.length < 4 || !last) break;
      after = { createdAt: last.createdAt, id: last.id };
    }
    expect(seen).toEqual(["zeta", "acme é", "beta", "Acme B", "acorn", "acme"]);
    const acme = await stores.organizations.listOrganizations({ limit: 10, namePrefix: "acme" });
    expect(acme.map((found) => found.name)).toEqual(["acme é", "acme"]);
    const byExternal = await stores.organizations.listOrganizations({ limit: 10, externalId: "c3" });
    expect(byExternal.map((found) => found.name)).toEqual(["beta"]);
  });

  test("update: disable keeps the first time, enable clears it; a taken value writes nothing", async () => {
    const stores = await open();
    await stores.organizations.insertOrganization(org("a", "acme", 1000, "cus_1"), {});
    await stores.organizations.insertOrganization(org("b", "beta", 1001, "cus_2"), {});
    const disabled = await stores.organizations.updateOrganization("org_a", { disabled: true }, 5000);
    expect(disabled).toMatchObject({ disabledAt: 5000, updatedAt: 5000 });
    const again = await stores.organizations.updateOrganization("org_a", { disabled: true }, 6000);
    expect(again).toMatchObject({ disabledAt: 5000, updatedAt: 6000 });
    await expect(
      stores.organizations.updateOrganization("org_a", { name: "renamed", externalId: "cus_2" }, 7000),
    ).rejects.toMatchObject({ code: "external_id_taken" });
    expect(await stores.organizations.getOrganization("org_a")).toMatchObject({
      name: "acme",
      externalId: "cus_1",
    });
    const enabled = await stores.organizations.updateOrganization(
      "org_a",
      { disabled: false, externalId: null },
      8000,
    );
    expect(enabled).toMatchObject({ disabledAt: null, externalId: null });
    expect(await stores.organizations.updateOrganization("org_zz", { disabled: true }, 9000)).toBeUndefined();
  });
}

describe("OrganizationStore on SQLite", () => {
  organizationStoreContract(async () => {
    const stores = await openStores("sqlite::memory:");
    onTestFinished(() => stores.close());
    return stores;
  });
});

describeWithServices(["postgres"], "OrganizationStore on PostgreSQL", ({ postgres }) => {
  organizationStoreContract(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const stores = await openStores(schema.url);
    onTestFinished(() => stores.close());
    return stores;
  });
});
