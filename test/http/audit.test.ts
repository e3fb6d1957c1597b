import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { expect, test } from "vitest";
import { bootstrapFirstOrganization } from "../../src/bootstrap.js";
import { changeOrganizationLimits } from "../../src/services/organization-limits.js";
import { buildTestApp, fakeClock, ownerApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { keyWith, rateLimitOf, seedKeys, UNKNOWN_KEY_ID } from "../helpers/http-keys.js";
import { tempDir } from "../helpers/processes.js";

const RFC_3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function readTrail(testApp: TestApp, reader: TestKey, query = "count=100") {
  const response = await testApp.app.inject({ url: `/v1/audit?${query}`, headers: reader.headers });
  if (response.statusCode !== 200) throw new Error(`audit: ${response.statusCode} ${response.body}`);
  return response.json().data as Array<Record<string, unknown>>;
}

function post(testApp: TestApp, caller: TestKey, url: string, payload: unknown) {
  return testApp.app.inject({ method: "POST", url, headers: caller.headers, payload: payload as object });
}

test("create, update and disable over REST are recorded with the calling key, before and after", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  const created = await post(testApp, owner, "/v1/api-keys", { name: "worker", permissions: ["usage:read"] });
  const id = created.json().id;
  testApp.clock?.advance(1_000);
  await post(testApp, owner, `/v1/api-keys/${id}`, { name: "renamed", permissions: ["images:read"] });
  testApp.clock?.advance(1_000);
  await testApp.app.inject({ method: "DELETE", url: `/v1/api-keys/${id}`, headers: owner.headers });

  const trail = await readTrail(testApp, owner);
  expect(trail.map((entry) => [entry.action, entry.actor])).toEqual([
    ["api_key.disable", owner.id],
    ["api_key.update", owner.id],
    ["api_key.create", owner.id],
    ["api_key.create", "operator"],
    ["organization.create", "operator"],
  ]);
  const [disable, update, create, ownerCreate, orgCreate] = trail;
  expect(create).toMatchObject({
    organization_id: owner.orgId,
    target_id: id,
    at: "2026-11-22T10:00:00.000Z",
    before: null,
    after: { id, name: "worker", enabled: true, permissions: ["usage:read"], all_future_permissions: false },
  });
  expect(update).toMatchObject({
    at: "2026-11-22T10:00:01.000Z",
    before: { name: "worker", permissions: ["usage:read"] },
    after: { name: "renamed", permissions: ["images:read"] },
  });
  expect(disable).toMatchObject({ before: { enabled: true }, after: { enabled: false } });
  expect(ownerCreate).toMatchObject({ target_id: owner.id, after: { all_future_permissions: true } });
  expect(orgCreate).toMatchObject({ target_id: owner.orgId, after: { id: owner.orgId, name: "acme" } });
  for (const entry of trail) {
    expect(entry.id).toMatch(/^aud_[0-9A-Za-z]{22}$/);
    expect(entry.at).toMatch(RFC_3339_MS);
  }
});

test("a refused change records nothing: over quota, insufficient authority, bad input, unknown key", async () => {
  const { testApp, owner } = await ownerApp();
  const writer = await keyWith(testApp, owner, ["api_keys:create_update", "api_keys:delete"]);
  await changeOrganizationLimits(testApp.services, owner.orgId, { maxKeys: 2 });
  const before = await readTrail(testApp, owner);

  const overQuota = await post(testApp, owner, "/v1/api-keys", { permissions: [] });
  expect(overQuota.json().code).toBe("key_quota_exceeded");
  const beyondAuthority = await post(testApp, writer, `/v1/api-keys/${owner.id}`, { permissions: [] });
  expect(beyondAuthority.json().code).toBe("insufficient_authority");
  const disableOwner = await testApp.app.inject({
    method: "DELETE",
    url: `/v1/api-keys/${owner.id}`,
    headers: writer.headers,
  });
  expect(disableOwner.json().code).toBe("insufficient_authority");
  const badInput = await post(testApp, owner, `/v1/api-keys/${writer.id}`, { permissions: ["nope"] });
  expect(badInput.statusCode).toBe(400);
  const unknown = await post(testApp, owner, `/v1/api-keys/${UNKNOWN_KEY_ID}`, { permissions: [] });
  expect(unknown.statusCode).toBe(404);

  expect(await readTrail(testApp, owner)).toEqual(before);
});

test("no audit row holds a secret, a token or a hash of either", async () => {
  const databasePath = join(tempDir(), "latchkey.db");
  const { testApp, owner } = await ownerApp({ env: { LATCHKEY_DATABASE_URL: `sqlite:${databasePath}` } });
  const created = (await post(testApp, owner, "/v1/api-keys", { permissions: ["usage:read"] })).json();
  await post(testApp, owner, `/v1/api-keys/${created.id}`, { name: "x", permissions: [] });
  await testApp.app.inject({ method: "DELETE", url: `/v1/api-keys/${created.id}`, headers: owner.headers });
  const service = await testApp.services.serviceTokens.create("gateway");
  await testApp.services.serviceTokens.revoke(service.record.id);
  await testApp.services.plans.change(owner.orgId, { imageCredits: 70 });
  await changeOrganizationLimits(testApp.services, owner.orgId, { quotas: { "api-key:read": 500 } });

  const database = new SQLite(databasePath, { readonly: true });
  const rows = database.prepare("select * from audit_events").all();
  database.close();
  expect(rows.length).toBe(9);
  const text = JSON.stringify(rows);
  const { hasher } = testApp.services;
  for (const secret of [created.api_key, owner.secret, service.token]) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(hasher.hash(secret));
  }
  expect(text).not.toMatch(/secret|hash|lksk_|lkst_/i);
});

test("GET /v1/audit needs audit:read, is counted as api-key:read and is never cached", async () => {
  const { testApp, owner } = await ownerApp();
  const reader = await keyWith(testApp, owner, ["api_keys:read"]);
  const auditor = await keyWith(testApp, owner, ["audit:read"]);

  const anonymous = await testApp.app.inject({ url: "/v1/audit" });
  expect(anonymous.statusCode).toBe(401);
  const refused = await testApp.app.inject({ url: "/v1/audit", headers: reader.headers });
  expect(refused.statusCode).toBe(403);
  expect(refused.json()).toMatchObject({ code: "missing_permission" });
  expect(refused.json().message).toContain("audit:read");
  expect(refused.headers["cache-control"]).toBe("no-store");

  const allowed = await testApp.app.inject({ url: "/v1/audit", headers: auditor.headers });
  expect(allowed.statusCode).toBe(200);
  expect(allowed.headers["cache-control"]).toBe("no-store");
  expect(rateLimitOf(allowed)).toEqual({ group: "api-key:read", remaining: 99 });
  expect(allowed.json().data.map((entry: { target_id: string }) => entry.target_id)).toContain(auditor.id);

  const wrongMethod = await testApp.app.inject({
    method: "POST",
    url: "/v1/audit",
    headers: auditor.headers,
  });
  expect(wrongMethod.statusCode).toBe(405);
});

test("pages run newest first without repeats; a tampered cursor or a bad count is a 400", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  await seedKeys(testApp, owner, 5);
  const everything = await readTrail(testApp, owner);
  expect(everything).toHaveLength(7);
  const seen: unknown[] = [];
  let query = "count=3";
  for (;;) {
    const page = (await testApp.app.inject({ url: `/v1/audit?${query}`, headers: owner.headers })).json();
    seen.push(...page.data);
    if (page.pagination.next_page_start === null) break;
    query = `count=3&page_start=${page.pagination.next_page_start}`;
  }
  expect(seen).toEqual(everything);
  const times = everything.map((entry) => Date.parse(String(entry.at)));
  expect([...times].sort((a, b) => b - a)).toEqual(times);

  const tampered = await testApp.app.inject({ url: "/v1/audit?page_start=abc", headers: owner.headers });
  expect(tampered.statusCode).toBe(400);
  expect(tampered.json().code).toBe("invalid_request");
  const badCount = await testApp.app.inject({ url: "/v1/audit?count=0", headers: owner.headers });
  expect(badCount.statusCode).toBe(400);
  const unknownParameter = await testApp.app.inject({ url: "/v1/audit?org=x", headers: owner.headers });
  expect(unknownParameter.statusCode).toBe(400);
});

test("since keeps entries at or after an RFC 3339 time; anything else is a 400 naming since", async () => {
  const { testApp, owner } = await ownerApp({ clock: fakeClock() });
  testApp.clock?.advance(60_000);
  await seedKeys(testApp, owner, 2);
  const recent = await readTrail(testApp, owner, "since=2026-11-22T10:01:00Z");
  expect(recent.map((entry) => entry.action)).toEqual(["api_key.create", "api_key.create"]);
  const offset = await readTrail(
    testApp,
    owner,
    `since=${encodeURIComponent("2026-11-22T11:01:00.002+01:00")}`,
  );
  expect(offset).toHaveLength(1);
  const bad = await testApp.app.inject({ url: "/v1/audit?since=yesterday", headers: owner.headers });
  expect(bad.statusCode).toBe(400);
  expect(bad.json().validation_errors).toEqual([{ path: "/query/since", message: expect.any(String) }]);
});

test("each organization sees only its own entries; service tokens are not in any organization's", async () => {
  const { testApp, owner } = await ownerApp();
  const other = await testApp.createOrganization("other");
  await seedKeys(testApp, other, 2);
  await testApp.services.serviceTokens.create("gateway");
  const trail = await readTrail(testApp, owner);
  expect(trail.every((entry) => entry.organization_id === owner.orgId)).toBe(true);
  expect(trail).toHaveLength(2);
  expect((await readTrail(testApp, other)).length).toBe(4);
});

const PRINT = { bootstrap: "print", bootstrapFile: undefined, databaseUrl: "sqlite::memory:" } as const;

test("the first-start file is created new: a symlink planted at its path is refused, not followed, and nothing is created", async () => {
  const testApp = await buildTestApp();
  const dir = tempDir();
  const target = join(dir, "attacker-readable.env");
  writeFileSync(target, "");
  const file = join(dir, "first-start-credentials.env");
  symlinkSync(target, file);
  const config = { bootstrap: "file", bootstrapFile: file, databaseUrl: "sqlite::memory:" } as const;
  await expect(bootstrapFirstOrganization(testApp.services, config, () => undefined)).rejects.toThrow(
    /already exists \(a file or a symlink\)/,
  );
  expect(readFileSync(target, "utf8")).toBe("");
  expect(await testApp.services.store.hasOrganizations()).toBe(false);
});

test("the first start's organization, owner key and service token are recorded as bootstrap", async () => {
  const testApp = await buildTestApp();
  let printed = "";
  expect(await bootstrapFirstOrganization(testApp.services, PRINT, (text) => (printed += text))).toBe(true);
  const orgId = /organization: +(org_\w+)/.exec(printed)?.[1];
  if (!orgId) throw new Error(`no organization in ${printed}`);
  const orgTrail = await testApp.services.audit.list({ orgId, count: 10 });
  expect(orgTrail.entries.map((entry) => [entry.action, entry.actor])).toEqual([
    ["api_key.create", "bootstrap"],
    ["organization.create", "bootstrap"],
  ]);
  const deployment = await testApp.services.audit.list({ orgId: null, count: 10 });
  expect(deployment.entries).toMatchObject([
    { action: "service_token.create", actor: "bootstrap", orgId: null, before: null },
  ]);
});

test("the OpenAPI document describes GET /v1/audit and last_used_at on key records", async () => {
  const { app } = await ownerApp();
  const document = (await app.inject({ url: "/openapi.json" })).json();
  const operation = document.paths["/v1/audit"].get;
  expect(operation.security).toEqual([{ basicAuth: [] }]);
  expect(operation.parameters.map((parameter: { name: string }) => parameter.name).sort()).toEqual([
    "count",
    "page_start",
    "since",
  ]);
  expect(Object.keys(operation.responses).sort()).toEqual(["200", "400", "401", "403", "429", "503"]);
  const keyRecord = JSON.stringify(document.paths["/v1/api-keys/{id}"].get.responses["200"]);
  expect(keyRecord).toContain("last_used_at");
});
