import { expect, test } from "vitest";
import { basicAuth, fakeClock, ownerApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { keyWith } from "../helpers/http-keys.js";

async function lastUsedAt(testApp: TestApp, owner: TestKey, key: TestKey): Promise<string | null> {
  await testApp.services.lastUse.flush();
  const record = await testApp.app.inject({ url: `/v1/api-keys/${key.id}`, headers: owner.headers });
  return record.json().last_used_at;
}

async function use(testApp: TestApp, key: TestKey): Promise<number> {
  return (await testApp.app.inject({ url: "/v1/usage", headers: key.headers })).statusCode;
}

test("last_used_at is null until the key authenticates, then its time, kept within the minute", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const worker = await keyWith(testApp, owner, ["usage:read"]);
  expect(await lastUsedAt(testApp, owner, worker)).toBeNull();

  expect(await use(testApp, worker)).toBe(200);
  expect(await lastUsedAt(testApp, owner, worker)).toBe("2026-11-22T10:00:00.000Z");

  testApp.clock?.advance(59_000);
  expect(await use(testApp, worker)).toBe(200);
  expect(await lastUsedAt(testApp, owner, worker)).toBe("2026-11-22T10:00:00.000Z");

  testApp.clock?.advance(2_000);
  expect(await use(testApp, worker)).toBe(200);
  expect(await lastUsedAt(testApp, owner, worker)).toBe("2026-11-22T10:01:01.000Z");
});

test("a refused authentication is no use; a use refused later (permission) still is one", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const worker = await keyWith(testApp, owner, ["images:read"]);
  const wrongSecret = basicAuth(worker.apiId, `${worker.secret}x`);
  expect((await testApp.app.inject({ url: "/v1/usage", headers: wrongSecret })).statusCode).toBe(401);
  expect(await lastUsedAt(testApp, owner, worker)).toBeNull();
  expect(await use(testApp, worker)).toBe(403);
  expect(await lastUsedAt(testApp, owner, worker)).toBe("2026-11-22T10:00:00.000Z");
});

test("a last use is not a change: updated_at and the audit trail stay as they were", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const worker = await keyWith(testApp, owner, ["usage:read"]);
  const trail = async () =>
    (await testApp.app.inject({ url: "/v1/audit?count=100", headers: owner.headers })).json().data;
  const before = await trail();
  testApp.clock?.advance(5_000);
  await use(testApp, worker);
  await testApp.services.lastUse.flush();
  const record = (
    await testApp.app.inject({ url: `/v1/api-keys/${worker.id}`, headers: owner.headers })
  ).json();
  expect(record.updated_at).toBe("2026-11-22T10:00:00.000Z");
  expect(record.last_used_at).toBe("2026-11-22T10:00:05.000Z");
  expect(await trail()).toEqual(before);
});
