import { expect, test } from "vitest";
import type { KeyStore } from "../../src/store/key-store.js";
import { newKey, newOrganization, T0 } from "../helpers/store-records.js";

/** Opens a fresh, empty, migrated store that is closed (and dropped) when the test ends. */
export type OpenStore = () => Promise<KeyStore>;

async function storeWithOrganization(open: OpenStore, maxKeys?: number) {
  const store = await open();
  const org = newOrganization();
  await store.createOrganization(org);
  if (maxKeys !== undefined) await store.setMaxKeys(org.id, maxKeys);
  return { store, org };
}

/**
 * What every KeyStore backend promises, run against each of them (SQLite and PostgreSQL), as Kysely
 * runs one suite over every dialect.
 */
export function keyStoreContract(open: OpenStore): void {
  test("an empty database has no organizations until one is created", async () => {
    const store = await open();
    expect(await store.hasOrganizations()).toBe(false);
    const org = newOrganization("first");
    await store.createOrganization(org);
    expect(await store.hasOrganizations()).toBe(true);
    expect(await store.findOrganization(org.id)).toEqual(org);
    expect(await store.findOrganization("org_missing")).toBeUndefined();
  });

  test("overrides start empty, can be set, replaced and cleared", async () => {
    const { store, org } = await storeWithOrganization(open);
    expect(await store.getLimits(org.id)).toEqual({ maxKeys: null, quotas: {}, maxKeyLifetimeDays: null });
    await store.setQuota(org.id, "api-key:write", 50);
    await store.setQuota(org.id, "api-key:write", 70);
    await store.setQuota(org.id, "proxy:read", 500);
    await store.setMaxKeys(org.id, 250);
    expect(await store.getLimits(org.id)).toEqual({
      maxKeys: 250,
      quotas: { "api-key:write": 70, "proxy:read": 500 },
      maxKeyLifetimeDays: null,
    });
    await store.setQuota(org.id, "api-key:write", null);
    await store.setMaxKeys(org.id, null);
    expect(await store.getLimits(org.id)).toEqual({
      maxKeys: null,
      quotas: { "proxy:read": 500 },
      maxKeyLifetimeDays: null,
    });
  });

  test("a key reads back exactly as inserted, by api_id and by id within its organization only", async () => {
    const { store, org } = await storeWithOrganization(open);
    const key = newKey(org.id, {
      description: "déjà vu ✓",
      permissions: ["images:create", "api_keys:read"],
      enabled: false,
      createdAt: T0 + 123,
      updatedAt: T0 + 456,
    });
    expect(await store.insertKey(key, 100)).toEqual({ type: "created" });
    expect(await store.findKeyByApiId(key.apiId)).toEqual(key);
    expect(await store.findKey(org.id, key.id)).toEqual(key);
    const other = newOrganization("other");
    await store.createOrganization(other);
    expect(await store.findKey(other.id, key.id)).toBeUndefined();
    expect(await store.findKeyByApiId("lkid_unknown")).toBeUndefined();
  });

  test("the key quota counts every key ever created, disabled ones included", async () => {
    const { store, org } = await storeWithOrganization(open, 2);
    const first = newKey(org.id);
    await store.insertKey(first, 100);
    await store.changeKey(org.id, first.id, (current) => ({ ...current, enabled: false }));
    expect(await store.insertKey(newKey(org.id), 100)).toEqual({ type: "created" });
    expect(await store.insertKey(newKey(org.id), 100)).toEqual({ type: "quota_exceeded", maxKeys: 2 });
    const unlimited = newOrganization("default quota");
    await store.createOrganization(unlimited);
    for (let i = 0; i < 3; i++) await store.insertKey(newKey(unlimited.id), 3);
    expect(await store.insertKey(newKey(unlimited.id), 3)).toEqual({ type: "quota_exceeded", maxKeys: 3 });
  });

  test("concurrent inserts never push an organization past its quota", async () => {
    const { store, org } = await storeWithOrganization(open, 25);
    const results = await Promise.all(Array.from({ length: 40 }, () => store.insertKey(newKey(org.id), 100)));
    expect(results.filter((r) => r.type === "created")).toHaveLength(25);
    const listed = await store.listKeys(org.id, { limit: 100, includeDisabled: true, withPermissions: [] });
    expect(listed).toHaveLength(25);
  });

  test("lists newest first, page by page, without repeating or skipping a key", async () => {
    const { store, org } = await storeWithOrganization(open);
    // Two keys share a creation time, so the id breaks the tie.
    const times = [T0 + 1, T0 + 2, T0 + 2, T0 + 3, T0 + 4];
    const keys = [];
    for (const createdAt of times) {
      const key = newKey(org.id, { createdAt, updatedAt: createdAt });
      await store.insertKey(key, 100);
      keys.push(key);
    }
    const expected = [...keys]
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      .map((k) => k.id);
    const seen: string[] = [];
    let after: { createdAt: number; id: string } | undefined;
    for (;;) {
      const page = await store.listKeys(org.id, {
        limit: 2,
        after,
        includeDisabled: false,
        withPermissions: [],
      });
      seen.push(...page.map((k) => k.id));
      const last = page.at(-1);
      if (page.length < 2 || !last) break;
      after = { createdAt: last.createdAt, id: last.id };
    }
    expect(seen).toEqual(expected);
  });

  test("lists hide disabled keys unless asked, and filter by every named permission", async () => {
    const { store, org } = await storeWithOrganization(open);
    const reader = newKey(org.id, { permissions: ["api_keys:read"] });
    const both = newKey(org.id, { permissions: ["images:create", "api_keys:read"] });
    const owner = newKey(org.id, { permissions: [], allFuturePermissions: true });
    const disabled = newKey(org.id, { permissions: ["api_keys:read"], enabled: false });
    for (const key of [reader, both, owner, disabled]) await store.insertKey(key, 100);
    const ids = async (includeDisabled: boolean, withPermissions: string[]) =>
      (await store.listKeys(org.id, { limit: 10, includeDisabled, withPermissions })).map((k) => k.id).sort();
    expect(await ids(false, [])).toEqual([reader.id, both.id, owner.id].sort());
    expect(await ids(true, [])).toEqual([reader.id, both.id, owner.id, disabled.id].sort());
    expect(await ids(false, ["api_keys:read", "images:create"])).toEqual([both.id, owner.id].sort());
    expect(await ids(true, ["usage:read"])).toEqual([owner.id]);
  });

  test("changeKey writes the decided replacement, and nothing when the decision throws", async () => {
    const { store, org } = await storeWithOrganization(open);
    const key = newKey(org.id);
    await store.insertKey(key, 100);
    const changed = await store.changeKey(org.id, key.id, (current) => ({
      ...current,
      name: "renamed",
      permissions: ["usage:read"],
      updatedAt: T0 + 9,
    }));
    expect(changed).toMatchObject({ name: "renamed", permissions: ["usage:read"], updatedAt: T0 + 9 });
    expect(await store.findKey(org.id, key.id)).toEqual(changed);
    await expect(
      store.changeKey(org.id, key.id, () => {
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(await store.findKey(org.id, key.id)).toEqual(changed);
    expect(await store.changeKey(org.id, "key_missing", (current) => current)).toBeUndefined();
  });

  test("concurrent changes of one key are applied one after the other, none lost", async () => {
    const { store, org } = await storeWithOrganization(open);
    const key = newKey(org.id, { name: "" });
    await store.insertKey(key, 100);
    await Promise.all(
      Array.from({ length: 15 }, () =>
        store.changeKey(org.id, key.id, (current) => ({ ...current, name: `${current.name}x` })),
      ),
    );
    expect((await store.findKey(org.id, key.id))?.name).toBe("x".repeat(15));
  });

  test("a disable is visible to the very next read", async () => {
    const { store, org } = await storeWithOrganization(open);
    const key = newKey(org.id);
    await store.insertKey(key, 100);
    await store.changeKey(org.id, key.id, (current) => ({ ...current, enabled: false }));
    expect((await store.findKeyByApiId(key.apiId))?.enabled).toBe(false);
  });
}
