import { expect, test } from "vitest";
import { randomBase62 } from "../../src/domain/credentials.js";
import { PROXIES, type ResourceFamily, STORAGE_DESTINATIONS } from "../../src/domain/resource-families.js";
import { newResourceId } from "../../src/domain/resource-ids.js";
import type { KeyStore } from "../../src/store/key-store.js";
import type { ResourceStore, StoredResource } from "../../src/store/resource-store.js";

/** A fresh, empty, migrated database's stores, closed (and dropped) when the test ends. */
export type OpenResourceStores = () => Promise<{ keys: KeyStore; resources: ResourceStore }>;

const T0 = Date.parse("2026-11-22T10:00:00.000Z");

function newRecord(
  orgId: string,
  family: ResourceFamily = PROXIES,
  overrides: Partial<StoredResource> = {},
): StoredResource {
  return {
    id: newResourceId(family),
    orgId,
    family: family.name,
    name: "a record",
    enabled: true,
    settings: { nested: { list: [1, "two", null], ok: true }, unicode: "é🔑" },
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

async function withOrganization(open: OpenResourceStores) {
  const { keys, resources } = await open();
  const orgId = `org_${randomBase62(22)}`;
  await keys.createOrganization({ id: orgId, name: "acme", createdAt: T0 });
  return { keys, store: resources, orgId };
}

/** What every ResourceStore backend promises, run against SQLite and PostgreSQL. */
export function resourceStoreContract(open: OpenResourceStores): void {
  test("a record reads back exactly as written, settings included", async () => {
    const { store, orgId } = await withOrganization(open);
    const record = newRecord(orgId);
    expect(await store.insertResource(record, 10)).toEqual({ type: "created" });
    expect(await store.findResource({ orgId, family: "proxies", id: record.id })).toEqual(record);
  });

  test("records are scoped by organization and family", async () => {
    const { keys, store, orgId } = await withOrganization(open);
    const record = newRecord(orgId);
    await store.insertResource(record, 10);
    const otherOrg = `org_${randomBase62(22)}`;
    await keys.createOrganization({ id: otherOrg, name: "other", createdAt: T0 });
    expect(await store.findResource({ orgId: otherOrg, family: "proxies", id: record.id })).toBeUndefined();
    expect(await store.findResource({ orgId, family: "og_configs", id: record.id })).toBeUndefined();
    expect(await store.listResources(otherOrg, "proxies", { limit: 10 })).toEqual([]);
    expect(await store.listResources(orgId, "og_configs", { limit: 10 })).toEqual([]);
    expect(
      await store.replaceResource(
        { orgId: otherOrg, family: "proxies", id: record.id },
        { name: "x", enabled: false, settings: {}, updatedAt: T0 },
      ),
    ).toBeUndefined();
    expect(await store.deleteResource({ orgId: otherOrg, family: "proxies", id: record.id }, T0)).toBe(
      "not_found",
    );
    expect(await store.findResource({ orgId, family: "proxies", id: record.id })).toEqual(record);
  });

  test("lists newest first by (created_at, id) and continues strictly after a position", async () => {
    const { store, orgId } = await withOrganization(open);
    const records = [
      newRecord(orgId, PROXIES, { createdAt: T0 + 2 }),
      newRecord(orgId, PROXIES, { createdAt: T0 + 1 }),
      newRecord(orgId, PROXIES, { createdAt: T0 + 1 }),
      newRecord(orgId, PROXIES, { createdAt: T0, enabled: false }),
    ];
    for (const record of records) await store.insertResource(record, 10);
    const expected = [...records].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    expect(await store.listResources(orgId, "proxies", { limit: 10 })).toEqual(expected);
    const firstTwo = await store.listResources(orgId, "proxies", { limit: 2 });
    const last = firstTwo[1];
    if (!last) throw new Error("expected two records");
    expect(await store.listResources(orgId, "proxies", { limit: 10, after: last })).toEqual(
      expected.slice(2),
    );
  });

  test("replace changes name, enabled, settings and updated_at, and nothing else", async () => {
    const { store, orgId } = await withOrganization(open);
    const record = newRecord(orgId);
    await store.insertResource(record, 10);
    const changes = { name: "renamed", enabled: false, settings: {}, updatedAt: T0 + 5 };
    const replaced = await store.replaceResource({ orgId, family: "proxies", id: record.id }, changes);
    expect(replaced).toEqual({ ...record, ...changes });
    expect(await store.findResource({ orgId, family: "proxies", id: record.id })).toEqual(replaced);
  });

  test("the quota counts live records per family: full is refused, a delete frees a slot", async () => {
    const { store, orgId } = await withOrganization(open);
    const first = newRecord(orgId);
    await store.insertResource(first, 2);
    await store.insertResource(newRecord(orgId), 2);
    const refused = newRecord(orgId);
    expect(await store.insertResource(refused, 2)).toEqual({ type: "quota_exceeded", maxRecords: 2 });
    expect(await store.findResource({ orgId, family: "proxies", id: refused.id })).toBeUndefined();
    expect(await store.insertResource(newRecord(orgId, STORAGE_DESTINATIONS), 2)).toEqual({
      type: "created",
    });
    expect(await store.deleteResource({ orgId, family: "proxies", id: first.id }, T0)).toBe("deleted");
    expect(await store.insertResource(newRecord(orgId), 2)).toEqual({ type: "created" });
    expect(await store.insertResource(newRecord(orgId), 2)).toMatchObject({ type: "quota_exceeded" });
  });

  test("concurrent creates never pass the quota", async () => {
    const { store, orgId } = await withOrganization(open);
    const results = await Promise.all(
      Array.from({ length: 25 }, () => store.insertResource(newRecord(orgId), 7)),
    );
    expect(results.filter((result) => result.type === "created")).toHaveLength(7);
    expect(await store.listResources(orgId, "proxies", { limit: 100 })).toHaveLength(7);
  });

  test("concurrent deletes of one record: one deletes, the others see a repeat, and the slot is freed once", async () => {
    const { store, orgId } = await withOrganization(open);
    const record = newRecord(orgId);
    await store.insertResource(record, 2);
    await store.insertResource(newRecord(orgId), 2);
    const key = { orgId, family: "proxies" as const, id: record.id };
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => store.deleteResource(key, T0)));
    expect(outcomes.sort()).toEqual([
      "already_deleted",
      "already_deleted",
      "already_deleted",
      "already_deleted",
      "already_deleted",
      "deleted",
    ]);
    expect(await store.findResource(key)).toBeUndefined();
    // One slot was freed, not six.
    expect(await store.insertResource(newRecord(orgId), 2)).toEqual({ type: "created" });
    expect(await store.insertResource(newRecord(orgId), 2)).toMatchObject({ type: "quota_exceeded" });
  });

  test("a delete of an id that never existed is not_found", async () => {
    const { store, orgId } = await withOrganization(open);
    expect(await store.deleteResource({ orgId, family: "proxies", id: newResourceId(PROXIES) }, T0)).toBe(
      "not_found",
    );
  });

  test("the AWS external id is the first candidate, forever, even when asked concurrently", async () => {
    const { keys, store, orgId } = await withOrganization(open);
    const answers = await Promise.all(
      ["c1", "c2", "c3", "c4"].map((candidate) => store.awsExternalId(orgId, candidate)),
    );
    expect(new Set(answers).size).toBe(1);
    expect(await store.awsExternalId(orgId, "later")).toBe(answers[0]);
    const otherOrg = `org_${randomBase62(22)}`;
    await keys.createOrganization({ id: otherOrg, name: "other", createdAt: T0 });
    expect(await store.awsExternalId(otherOrg, "theirs")).toBe("theirs");
  });
}
