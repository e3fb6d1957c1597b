import { describe, expect, onTestFinished, test } from "vitest";
import type { AuditEntry } from "../../src/domain/audit.js";
import type { KeyStore } from "../../src/store/key-store.js";
import { openKeyStore } from "../../src/store/open-database.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";
import { newKey, newOrganization, T0 } from "../helpers/store-records.js";

/** Expiry, rolled secrets and the longest key lifetime, as every KeyStore backend keeps them. */
function keyExpiryContract(open: () => Promise<KeyStore>): void {
  async function storeWithOrganization() {
    const store = await open();
    const org = newOrganization();
    await store.createOrganization(org);
    return { store, org };
  }

  const auditEntry = (id: string) => (): AuditEntry => ({
    id,
    at: T0,
    actor: "system",
    orgId: null,
    action: "key.expired",
    targetId: "key_x",
    before: null,
    after: null,
  });

  test("expiry and a rolled secret read back as written, by insert and by change", async () => {
    const { store, org } = await storeWithOrganization();
    const key = newKey(org.id, { expiresAt: T0 + 86_400_000 });
    await store.insertKey(key, 100);
    expect(await store.findKeyByApiId(key.apiId)).toEqual(key);
    const rolled = await store.changeKey(org.id, key.id, (current) => ({
      ...current,
      secretHash: "cd".repeat(32),
      previousSecretHash: current.secretHash,
      previousSecretExpiresAt: T0 + 60_000,
      expiresAt: T0 + 3_600_000,
    }));
    expect(rolled).toMatchObject({
      secretHash: "cd".repeat(32),
      previousSecretHash: "ab".repeat(32),
      previousSecretExpiresAt: T0 + 60_000,
      expiresAt: T0 + 3_600_000,
    });
    expect(await store.findKey(org.id, key.id)).toEqual(rolled);
  });

  test("an expiry is recorded once, with its audit entry, and only once it has passed", async () => {
    const { store, org } = await storeWithOrganization();
    const key = newKey(org.id, { expiresAt: T0 + 1000 });
    const forever = newKey(org.id);
    await store.insertKey(key, 100);
    await store.insertKey(forever, 100);
    expect(await store.findUnrecordedExpiries(T0 + 999, 10)).toEqual([]);
    expect(await store.recordExpiry(key, T0 + 999, auditEntry("aud_early"))).toBe(false);
    expect(await store.findUnrecordedExpiries(T0 + 1000, 10)).toEqual([
      { id: key.id, orgId: org.id, apiId: key.apiId },
    ]);
    const attempts = await Promise.all(
      Array.from({ length: 5 }, (_, i) => store.recordExpiry(key, T0 + 2000, auditEntry(`aud_${i}`))),
    );
    expect(attempts.filter(Boolean)).toHaveLength(1);
    expect(await store.findUnrecordedExpiries(T0 + 5000, 10)).toEqual([]);
  });

  test("the longest key lifetime is an override like the others, set and cleared", async () => {
    const { store, org } = await storeWithOrganization();
    expect((await store.getLimits(org.id)).maxKeyLifetimeDays).toBeNull();
    await store.changeLimits(org.id, { maxKeyLifetimeDays: 90 });
    expect(await store.getLimits(org.id)).toMatchObject({ maxKeys: null, maxKeyLifetimeDays: 90 });
    await store.changeLimits(org.id, { maxKeyLifetimeDays: null });
    expect((await store.getLimits(org.id)).maxKeyLifetimeDays).toBeNull();
  });
}

describe("key expiry on SQLite", () => {
  keyExpiryContract(async () => {
    const store = await openKeyStore("sqlite::memory:");
    onTestFinished(() => store.close());
    return store;
  });
});

describeWithServices(["postgres"], "key expiry on PostgreSQL", ({ postgres }) => {
  keyExpiryContract(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const store = await openKeyStore(schema.url);
    onTestFinished(() => store.close());
    return store;
  });
});
