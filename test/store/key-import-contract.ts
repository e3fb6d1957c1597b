import { expect, test } from "vitest";
import { newKey, newOrganization, T0 } from "../helpers/store-records.js";
import type { OpenStore } from "./key-store-contract.js";

/**
 * What every KeyStore backend promises about imports, secret-hash lookups and leak marks (run against
 * SQLite and PostgreSQL by key-store.contract.test.ts).
 */
export function keyImportContract(open: OpenStore): void {
  async function storeWithOrganization(maxKeys?: number) {
    const store = await open();
    const org = newOrganization();
    await store.createOrganization(org);
    if (maxKeys !== undefined) await store.setMaxKeys(org.id, maxKeys);
    return { store, org };
  }

  test("an import stores every key, with its scheme, and counts them against the quota", async () => {
    const { store, org } = await storeWithOrganization(3);
    const keys = [
      newKey(org.id, { apiId: "old-1", secretHash: "a1".repeat(32), secretScheme: "sha256" }),
      newKey(org.id, { apiId: "old-2", secretHash: "b2".repeat(32) }),
    ];
    expect(await store.importKeys(org.id, keys, 100, { dryRun: false })).toEqual({ type: "imported" });
    expect(await store.findKeyByApiId("old-1")).toEqual(keys[0]);
    expect(await store.findKeyByApiId("old-2")).toEqual(keys[1]);
    const [listed] = (await store.listOrganizations()).filter((o) => o.id === org.id);
    expect(listed?.keyCount).toBe(2);
    // One slot left: two more keys are refused together, and nothing of them is stored.
    const more = [newKey(org.id), newKey(org.id)];
    expect(await store.importKeys(org.id, more, 100, { dryRun: false })).toEqual({
      type: "quota_exceeded",
      maxKeys: 3,
      keyCount: 2,
    });
    expect(await store.findKeyByApiId(more[0]?.apiId ?? "")).toBeUndefined();
  });

  test("a dry run checks everything and stores nothing", async () => {
    const { store, org } = await storeWithOrganization();
    const keys = [newKey(org.id), newKey(org.id)];
    expect(await store.importKeys(org.id, keys, 100, { dryRun: true })).toEqual({ type: "imported" });
    expect(await store.findKeyByApiId(keys[0]?.apiId ?? "")).toBeUndefined();
    expect((await store.listOrganizations())[0]?.keyCount).toBe(0);
  });

  test("a taken api_id or a stored secret hash refuses the whole import", async () => {
    const { store, org } = await storeWithOrganization();
    const existing = newKey(org.id, { apiId: "taken", secretHash: "cd".repeat(32) });
    await store.insertKey(existing, 100);
    const fresh = newKey(org.id, { secretHash: "ef".repeat(32) });
    const clash = newKey(org.id, { apiId: "taken", secretHash: "01".repeat(32) });
    expect(await store.importKeys(org.id, [fresh, clash], 100, { dryRun: false })).toEqual({
      type: "api_id_taken",
      apiIds: ["taken"],
    });
    const sameSecret = newKey(org.id, { secretHash: "cd".repeat(32) });
    expect(await store.importKeys(org.id, [fresh, sameSecret], 100, { dryRun: false })).toEqual({
      type: "secret_taken",
      index: 1,
    });
    expect(await store.findKeyByApiId(fresh.apiId)).toBeUndefined();
    expect((await store.listOrganizations())[0]?.keyCount).toBe(1);
  });

  test("keys are found by their secret hash in any organization, and leaked_at is written by changeKey", async () => {
    const { store, org } = await storeWithOrganization();
    const key = newKey(org.id, { secretHash: "9f".repeat(32) });
    await store.insertKey(key, 100);
    await store.insertKey(newKey(org.id, { secretHash: "8e".repeat(32) }), 100);
    expect(await store.findKeysBySecretHash(["9f".repeat(32), "00".repeat(32)])).toEqual([key]);
    expect(await store.findKeysBySecretHash([])).toEqual([]);
    const changed = await store.changeKey(org.id, key.id, (current) => ({
      ...current,
      enabled: false,
      leakedAt: T0 + 5,
    }));
    expect(changed?.leakedAt).toBe(T0 + 5);
    expect(await store.findKeyByApiId(key.apiId)).toMatchObject({ enabled: false, leakedAt: T0 + 5 });
  });
}
