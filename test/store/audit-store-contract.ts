import { expect, test } from "vitest";
import type { AuditEntry, AuditOf } from "../../src/domain/audit.js";
import { randomBase62 } from "../../src/domain/credentials.js";
import type { Stores } from "../../src/store/open-database.js";
import { newKey, newOrganization, T0 } from "../helpers/store-records.js";

/** Opens fresh, empty, migrated stores that are closed (and dropped) when the test ends. */
export type OpenStores = () => Promise<Stores>;

let sequence = 0;
/** An AuditOf that records the names of the records it saw, at increasing times. */
function audit<T>(orgId: string | null, action: AuditEntry["action"]): AuditOf<T> {
  const nameOf = (record: T) => (record as { name?: string }).name ?? null;
  return (before, after) => ({
    id: `aud_${randomBase62(22)}`,
    at: T0 + ++sequence,
    actor: "operator",
    orgId,
    action,
    targetId: "target",
    before: before === undefined ? null : { name: nameOf(before) },
    after: after === undefined ? null : { name: nameOf(after) },
  });
}

const failing: AuditOf<unknown> = () => {
  throw new Error("audit write failed");
};

async function withOrganization(open: OpenStores) {
  const stores = await open();
  const org = newOrganization();
  await stores.keys.createOrganization(org, audit(org.id, "organization.create"));
  return { stores, org };
}

async function trail(stores: Stores, orgId: string | null) {
  return stores.audit.listAuditEntries({ orgId, limit: 100 });
}

/**
 * The audit trail and last use, run against every backend: an entry commits with its change or not at
 * all (a refused change records nothing; a failing entry undoes the change), newest first, and
 * `touchLastUsed` writes only when the stored time is older than the interval.
 */
export function auditStoreContract(open: OpenStores): void {
  test("each change writes its entry with it; reads come back newest first with their snapshots", async () => {
    const { stores, org } = await withOrganization(open);
    const key = newKey(org.id);
    await stores.keys.insertKey(key, 100, audit(org.id, "api_key.create"));
    await stores.keys.changeKey(
      org.id,
      key.id,
      (current) => ({ ...current, name: "renamed" }),
      audit(org.id, "api_key.update"),
    );
    await stores.keys.changeLimits(org.id, { maxKeys: 7 }, audit(org.id, "organization.limits.update"));
    await stores.plans.setPlan(org.id, { imageCredits: 9 }, audit(org.id, "plan.update"));
    const entries = await trail(stores, org.id);
    expect(entries.map((entry) => entry.action)).toEqual([
      "plan.update",
      "organization.limits.update",
      "api_key.update",
      "api_key.create",
      "organization.create",
    ]);
    expect(entries[2]).toMatchObject({
      before: { name: "a key" },
      after: { name: "renamed" },
      orgId: org.id,
    });
    expect(entries[3]?.before).toBeNull();
    expect(await trail(stores, null)).toEqual([]);
  });

  test("a refused change records nothing: quota exceeded, decision thrown, unknown records", async () => {
    const { stores, org } = await withOrganization(open);
    await stores.keys.changeLimits(org.id, { maxKeys: 1 }, audit(org.id, "organization.limits.update"));
    const key = newKey(org.id);
    await stores.keys.insertKey(key, 100, audit(org.id, "api_key.create"));
    const before = await trail(stores, org.id);
    expect(await stores.keys.insertKey(newKey(org.id), 100, audit(org.id, "api_key.create"))).toMatchObject({
      type: "quota_exceeded",
    });
    await expect(
      stores.keys.changeKey(
        org.id,
        key.id,
        () => {
          throw new Error("insufficient authority");
        },
        audit(org.id, "api_key.update"),
      ),
    ).rejects.toThrow("insufficient authority");
    expect(
      await stores.keys.changeKey(org.id, "key_missing", (k) => k, audit(org.id, "api_key.update")),
    ).toBe(undefined);
    expect(await stores.keys.changeLimits("org_missing", { maxKeys: 3 }, audit(null, "plan.update"))).toBe(
      undefined,
    );
    expect(await stores.plans.setPlan("org_missing", { imageCredits: 3 }, audit(null, "plan.update"))).toBe(
      false,
    );
    expect(
      await stores.serviceTokens.revokeServiceToken("stk_missing", T0, audit(null, "service_token.revoke")),
    ).toBe(false);
    expect(await trail(stores, org.id)).toEqual(before);
    expect(await trail(stores, null)).toEqual([]);
  });

  test("when the entry cannot be written, the change is undone: they share one transaction", async () => {
    const { stores, org } = await withOrganization(open);
    const key = newKey(org.id);
    await expect(stores.keys.insertKey(key, 100, failing)).rejects.toThrow("audit write failed");
    expect(await stores.keys.findKey(org.id, key.id)).toBeUndefined();
    await stores.keys.insertKey(key, 100);
    await expect(
      stores.keys.changeKey(org.id, key.id, (current) => ({ ...current, enabled: false }), failing),
    ).rejects.toThrow();
    expect((await stores.keys.findKey(org.id, key.id))?.enabled).toBe(true);
    await expect(stores.keys.changeLimits(org.id, { maxKeys: 3 }, failing)).rejects.toThrow();
    expect((await stores.keys.getLimits(org.id)).maxKeys).toBeNull();
    await expect(stores.plans.setPlan(org.id, { imageCredits: 3 }, failing)).rejects.toThrow();
    expect((await stores.plans.getPlan(org.id))?.imageCredits).toBeNull();
    const other = newOrganization();
    await expect(stores.keys.createOrganization(other, failing)).rejects.toThrow();
    expect(await stores.keys.findOrganization(other.id)).toBeUndefined();
    const token = {
      id: `stk_${randomBase62(22)}`,
      name: "t",
      tokenHash: "cd".repeat(32),
      createdAt: T0,
      revokedAt: null,
      scopes: ["authorize" as const],
    };
    await expect(stores.serviceTokens.insertServiceToken(token, failing)).rejects.toThrow();
    expect(await stores.serviceTokens.listServiceTokens()).toEqual([]);
    await stores.serviceTokens.insertServiceToken(token);
    await expect(stores.serviceTokens.revokeServiceToken(token.id, T0 + 5, failing)).rejects.toThrow();
    expect((await stores.serviceTokens.listServiceTokens())[0]?.revokedAt).toBeNull();
  });

  test("resource changes share the entry's transaction; a delete records the record before it", async () => {
    const { stores, org } = await withOrganization(open);
    const record = {
      id: `prx_${randomBase62(22)}`,
      orgId: org.id,
      family: "proxies" as const,
      name: "p",
      enabled: true,
      settings: {},
      createdAt: T0,
      updatedAt: T0,
    };
    const where = { orgId: org.id, family: "proxies" as const, id: record.id };
    await expect(stores.resources.insertResource(record, 10, failing)).rejects.toThrow();
    expect(await stores.resources.findResource(where)).toBeUndefined();
    await stores.resources.insertResource(record, 10, audit(org.id, "proxy.create"));
    const changes = { name: "q", enabled: false, settings: {}, updatedAt: T0 + 1 };
    await expect(stores.resources.replaceResource(where, changes, failing)).rejects.toThrow();
    expect((await stores.resources.findResource(where))?.name).toBe("p");
    await stores.resources.replaceResource(where, changes, audit(org.id, "proxy.update"));
    await expect(stores.resources.deleteResource(where, T0 + 2, failing)).rejects.toThrow();
    expect(await stores.resources.findResource(where)).toBeDefined();
    expect(await stores.resources.deleteResource(where, T0 + 2, audit(org.id, "proxy.delete"))).toBe(
      "deleted",
    );
    expect(await stores.resources.deleteResource(where, T0 + 3, audit(org.id, "proxy.delete"))).toBe(
      "already_deleted",
    );
    const entries = (await trail(stores, org.id)).slice(0, 3);
    expect(entries.map((entry) => [entry.action, entry.before, entry.after])).toEqual([
      ["proxy.delete", { name: "q" }, null],
      ["proxy.update", { name: "p" }, { name: "q" }],
      ["proxy.create", null, { name: "p" }],
    ]);
  });

  test("pages continue strictly after a position, and since keeps only entries at or after it", async () => {
    const { stores, org } = await withOrganization(open);
    for (let i = 0; i < 4; i++)
      await stores.plans.setPlan(org.id, { imageCredits: i }, audit(org.id, "plan.update"));
    const all = await trail(stores, org.id);
    expect(all).toHaveLength(5);
    const second = all[1];
    if (!second) throw new Error("expected entries");
    const rest = await stores.audit.listAuditEntries({
      orgId: org.id,
      limit: 100,
      after: { at: second.at, id: second.id },
    });
    expect(rest).toEqual(all.slice(2));
    const recent = await stores.audit.listAuditEntries({ orgId: org.id, limit: 100, since: second.at });
    expect(recent).toEqual(all.slice(0, 2));
  });

  test("last use: null until touched, written when older than the interval, kept within it", async () => {
    const { stores, org } = await withOrganization(open);
    const key = newKey(org.id);
    await stores.keys.insertKey(key, 100);
    expect((await stores.keys.findKey(org.id, key.id))?.lastUsedAt).toBeNull();
    await stores.keys.touchLastUsed(key, T0 + 1_000, T0 + 1_000 - 60_000);
    expect((await stores.keys.findKey(org.id, key.id))?.lastUsedAt).toBe(T0 + 1_000);
    // Another node, 30 s later: the stored time is within the minute, so the row is left alone.
    await stores.keys.touchLastUsed(key, T0 + 31_000, T0 + 31_000 - 60_000);
    expect((await stores.keys.findKeyByApiId(key.apiId))?.lastUsedAt).toBe(T0 + 1_000);
    await stores.keys.touchLastUsed(key, T0 + 61_001, T0 + 61_001 - 60_000);
    expect((await stores.keys.findKeyByApiId(key.apiId))?.lastUsedAt).toBe(T0 + 61_001);
    // A last use is not a change: the key's updated_at and the audit trail stay as they were.
    expect((await stores.keys.findKey(org.id, key.id))?.updatedAt).toBe(T0);
    expect((await trail(stores, org.id)).map((entry) => entry.action)).toEqual(["organization.create"]);
  });
}
