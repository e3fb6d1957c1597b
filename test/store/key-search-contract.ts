import { expect, test } from "vitest";
import type { ApiKeyRecord, KeyStore, ListKeysQuery } from "../../src/store/key-store.js";
import { newKey, newOrganization, T0 } from "../helpers/store-records.js";
import type { OpenStore } from "./key-store-contract.js";

async function storeWithKeys(open: OpenStore, keys: (orgId: string) => ApiKeyRecord[]) {
  const store = await open();
  const org = newOrganization();
  await store.createOrganization(org);
  const inserted = keys(org.id);
  for (const key of inserted) await store.insertKey(key, 100_000);
  return { store, org, keys: inserted };
}

const page = (query: Partial<ListKeysQuery>): ListKeysQuery => ({
  limit: 100,
  includeDisabled: true,
  withPermissions: [],
  ...query,
});

async function names(store: KeyStore, orgId: string, query: Partial<ListKeysQuery>) {
  return (await store.listKeys(orgId, page(query))).map((key) => key.name);
}

/** The list's latchkey filters (metadata members, name prefix) and the two members they read, per backend. */
export function keySearchContract(open: OpenStore): void {
  test("allowed_cidrs and metadata read back as inserted, and as changed or cleared", async () => {
    const { store, org, keys } = await storeWithKeys(open, (orgId) => [
      newKey(orgId, {
        allowedCidrs: ["203.0.113.0/24", "2001:db8::/32"],
        metadata: { team: "a", "x.y": "" },
      }),
    ]);
    const [key] = keys as [ApiKeyRecord];
    expect(await store.findKeyByApiId(key.apiId)).toEqual(key);
    await store.changeKey(org.id, key.id, (current) => ({ ...current, metadata: { team: "b" } }));
    expect(await names(store, org.id, { withMetadata: { team: "a" } })).toEqual([]);
    expect(await names(store, org.id, { withMetadata: { team: "b" } })).toEqual([key.name]);
    await store.changeKey(org.id, key.id, (current) => ({ ...current, allowedCidrs: null, metadata: null }));
    expect(await store.findKey(org.id, key.id)).toMatchObject({ allowedCidrs: null, metadata: null });
    expect(await names(store, org.id, { withMetadata: { team: "b" } })).toEqual([]);
  });

  test("metadata filters are all-of, exact, and confined to the organization", async () => {
    const { store, org } = await storeWithKeys(open, (orgId) => [
      newKey(orgId, { name: "both", createdAt: T0 + 1, metadata: { team: "billing", env: "prod" } }),
      newKey(orgId, { name: "team only", createdAt: T0 + 2, metadata: { team: "billing", env: "dev" } }),
      newKey(orgId, { name: "case", createdAt: T0 + 3, metadata: { team: "Billing", env: "prod" } }),
      newKey(orgId, { name: "none", createdAt: T0 + 4 }),
    ]);
    const other = newOrganization("other");
    await store.createOrganization(other);
    await store.insertKey(newKey(other.id, { name: "elsewhere", metadata: { team: "billing" } }), 1000);
    expect(await names(store, org.id, { withMetadata: { team: "billing" } })).toEqual(["team only", "both"]);
    expect(await names(store, org.id, { withMetadata: { team: "billing", env: "prod" } })).toEqual(["both"]);
    expect(await names(store, org.id, { withMetadata: { env: "prod" } })).toEqual(["case", "both"]);
    expect(await names(store, org.id, { withMetadata: { team: "billin" } })).toEqual([]);
  });

  test("name_prefix is a case-sensitive prefix in code point order, special characters included", async () => {
    const { store, org } = await storeWithKeys(open, (orgId) =>
      ["prod-a", "prod-b", "Prod-c", "pro", "prod_%", "prodz", "prod\u{10FFFF}x", "é-1", "éa"].map(
        (name, i) => newKey(orgId, { name, createdAt: T0 + i }),
      ),
    );
    expect(await names(store, org.id, { namePrefix: "prod" })).toEqual([
      "prod\u{10FFFF}x",
      "prodz",
      "prod_%",
      "prod-b",
      "prod-a",
    ]);
    expect(await names(store, org.id, { namePrefix: "prod_" })).toEqual(["prod_%"]);
    expect(await names(store, org.id, { namePrefix: "prod\u{10FFFF}" })).toEqual(["prod\u{10FFFF}x"]);
    expect(await names(store, org.id, { namePrefix: "é" })).toEqual(["éa", "é-1"]);
    expect(await names(store, org.id, { namePrefix: "P" })).toEqual(["Prod-c"]);
  });

  test("filters combine with the spec's filters and keep the keyset pages", async () => {
    const { store, org } = await storeWithKeys(open, (orgId) =>
      Array.from({ length: 12 }, (_, i) =>
        newKey(orgId, {
          name: `${i % 2 === 0 ? "web" : "cli"}-${String(i).padStart(2, "0")}`,
          createdAt: T0 + Math.floor(i / 3), // ties on created_at, broken by id
          enabled: i % 4 !== 0,
          permissions: i % 3 === 0 ? ["images:create"] : ["api_keys:read"],
          metadata: { env: i < 8 ? "prod" : "dev" },
        }),
      ),
    );
    const query = { withMetadata: { env: "prod" }, namePrefix: "web", includeDisabled: false };
    const everything = await names(store, org.id, query);
    expect(everything.sort()).toEqual(["web-02", "web-06"]);
    const all = await store.listKeys(org.id, page({ withMetadata: { env: "prod" }, namePrefix: "web" }));
    expect(all.map((key) => key.name).sort()).toEqual(["web-00", "web-02", "web-04", "web-06"]);
    const seen: string[] = [];
    let after: { createdAt: number; id: string } | undefined;
    for (;;) {
      const rows = await store.listKeys(
        org.id,
        page({ withMetadata: { env: "prod" }, namePrefix: "web", limit: 1, after }),
      );
      if (rows.length === 0) break;
      const last = rows[0] as ApiKeyRecord;
      seen.push(last.name);
      after = { createdAt: last.createdAt, id: last.id };
    }
    expect(seen).toEqual(all.map((key) => key.name));
    expect(
      await names(store, org.id, { withMetadata: { env: "prod" }, withPermissions: ["images:create"] }),
    ).toEqual(["web-06", "cli-03", "web-00"]);
  });

  test("a name prefix most keys share is paged newest first like a narrow one", async () => {
    // Past 1,000 matches the list walks the keys newest first instead of the name index.
    const { store, org } = await storeWithKeys(open, (orgId) =>
      Array.from({ length: 1010 }, (_, i) =>
        newKey(orgId, {
          name: `${i % 101 === 0 ? "b" : "a"}-${String(i).padStart(4, "0")}`,
          createdAt: T0 + i,
        }),
      ),
    );
    const broad = await store.listKeys(org.id, page({ namePrefix: "a-", limit: 3 }));
    expect(broad.map((key) => key.name)).toEqual(["a-1009", "a-1008", "a-1007"]);
    const last = broad[2] as ApiKeyRecord;
    const next = await store.listKeys(
      org.id,
      page({ namePrefix: "a-", limit: 3, after: { createdAt: last.createdAt, id: last.id } }),
    );
    expect(next.map((key) => key.name)).toEqual(["a-1006", "a-1005", "a-1004"]);
    const narrow = await names(store, org.id, { namePrefix: "b-", limit: 3 });
    expect(narrow).toEqual(["b-0909", "b-0808", "b-0707"]);
  });
}
