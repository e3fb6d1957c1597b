import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { changeOrganizationLimits } from "../../src/services/organization-limits.js";
import { basicAuth, fakeClock, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { sampleValue } from "../helpers/metrics-page.js";
import { postKey } from "../helpers/http-keys.js";
import { platformApp } from "../helpers/platform.js";

/** Key expiry (docs/key-lifecycle.md) through every surface, with a fake clock. */

const HOUR = 3_600_000;
const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-expiry-"));
  const routes = join(dir, "routes.json");
  writeFileSync(routes, JSON.stringify([{ method: "GET", path: "/v1/thing", permission: "images:read" }]));
  const clock = fakeClock(T0);
  const platform = await platformApp({ env: { LATCHKEY_ROUTES: routes }, clock });
  return { ...platform, clock };
}

const update = (testApp: TestApp, owner: TestKey, id: string, payload: Record<string, unknown>) =>
  testApp.app.inject({ method: "POST", url: `/v1/api-keys/${id}`, headers: owner.headers, payload });

const read = (testApp: TestApp, headers: Record<string, string>, id: string) =>
  testApp.app.inject({ method: "GET", url: `/v1/api-keys/${id}`, headers });

describe("an expiring key", () => {
  test("works until expires_at and is refused from that millisecond on, on every surface, like any bad credential", async () => {
    const { testApp, owner, clock, authorize, serviceToken } = await setup();
    const { body, headers } = await postKey(testApp, owner, {
      name: "short-lived",
      permissions: ["api_keys:read", "images:read"],
      expires_at: iso(T0 + HOUR),
    });
    expect(body).toMatchObject({ expires_at: iso(T0 + HOUR), expired: false });
    const forward = (auth: Record<string, string>) =>
      testApp.app.inject({
        method: "GET",
        url: "/v1/forward-auth",
        headers: {
          "x-latchkey-service-token": serviceToken,
          "x-forwarded-method": "GET",
          "x-forwarded-uri": "/v1/thing",
          ...auth,
        },
      });
    const mcp = (auth: Record<string, string>) =>
      testApp.app.inject({
        method: "POST",
        url: "/mcp",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...auth,
        },
        payload: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-03-26",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        }),
      });
    const decide = (authorization: string) => authorize({ authorization, permission: "images:read" });

    clock.set(T0 + HOUR - 1);
    expect((await read(testApp, headers, body.id)).statusCode).toBe(200);
    expect((await decide(headers.authorization)).json()).toMatchObject({ allowed: true });
    expect((await forward(headers)).statusCode).toBe(200);
    expect((await mcp(headers)).statusCode).toBe(200);

    clock.set(T0 + HOUR);
    const wrong = basicAuth(body.api_id, "lksk_not-the-secret");
    const refused = await read(testApp, headers, body.id);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual((await read(testApp, wrong, body.id)).json());
    expect(refused.headers["www-authenticate"]).toBe('Basic realm="latchkey", charset="UTF-8"');
    const decision = (await decide(headers.authorization)).json();
    expect(decision).toMatchObject({ allowed: false, status: 401, key: null });
    expect(decision.error).toEqual((await decide(wrong.authorization)).json().error);
    expect((await forward(headers)).statusCode).toBe(401);
    expect((await mcp(headers)).statusCode).toBe(401);
  });

  test("lists and reads mark it expired; keys without an expiry carry expires_at null", async () => {
    const { testApp, owner, clock } = await setup();
    const { body } = await postKey(testApp, owner, { permissions: [], expires_at: iso(T0 + HOUR) });
    clock.advance(HOUR);
    const list = await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: owner.headers });
    const records = list.json().data as Array<Record<string, unknown>>;
    expect(records.find((record) => record.id === body.id)).toMatchObject({
      expires_at: iso(T0 + HOUR),
      expired: true,
    });
    expect(records.find((record) => record.id === owner.id)).toMatchObject({
      expires_at: null,
      expired: false,
    });
    expect((await read(testApp, owner.headers, body.id)).json()).toMatchObject({ expired: true });
  });

  test("its expiry is recorded once, in the audit trail and the metric, whether a use or the sweep comes first", async () => {
    const { testApp, owner, clock } = await setup();
    const first = await postKey(testApp, owner, {
      permissions: ["api_keys:read"],
      expires_at: iso(T0 + HOUR),
    });
    const second = await postKey(testApp, owner, { permissions: [], expires_at: iso(T0 + HOUR) });
    clock.advance(HOUR + 1);
    for (let i = 0; i < 3; i++)
      expect((await read(testApp, first.headers, first.body.id)).statusCode).toBe(401);
    await testApp.services.expiries.flush();
    expect(await testApp.services.expiries.sweep()).toBe(1);
    expect(await testApp.services.expiries.sweep()).toBe(0);
    const audit = await testApp.app.inject({
      method: "GET",
      url: "/v1/audit?count=100",
      headers: owner.headers,
    });
    const entries = (audit.json().data as Array<Record<string, unknown>>).filter(
      (entry) => entry.action === "key.expired",
    );
    expect(entries.map((entry) => entry.target_id).sort()).toEqual([first.body.id, second.body.id].sort());
    expect(entries.every((entry) => entry.actor === "system")).toBe(true);
    const metrics = await testApp.app.inject({ method: "GET", url: "/metrics" });
    expect(sampleValue(metrics.body, "latchkey_keys_expired_total")).toBe(2);
  });
});

describe("updates keep, or bring forward, an expiry", () => {
  test("an update that omits expires_at (an official hcti.io client) keeps it", async () => {
    const { testApp, owner } = await setup();
    const { body } = await postKey(testApp, owner, { permissions: [], expires_at: iso(T0 + HOUR) });
    const updated = await update(testApp, owner, body.id, { name: "renamed", permissions: ["usage:read"] });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ name: "renamed", expires_at: iso(T0 + HOUR) });
  });

  test("an update may bring it forward, or give a key without one an expiry, or resend the same value", async () => {
    const { testApp, owner } = await setup();
    const { body } = await postKey(testApp, owner, { permissions: [], expires_at: iso(T0 + 2 * HOUR) });
    const same = await update(testApp, owner, body.id, { permissions: [], expires_at: iso(T0 + 2 * HOUR) });
    expect(same.json()).toMatchObject({ expires_at: iso(T0 + 2 * HOUR) });
    const sooner = await update(testApp, owner, body.id, { permissions: [], expires_at: iso(T0 + HOUR) });
    expect(sooner.json()).toMatchObject({ expires_at: iso(T0 + HOUR) });
    const forever = await postKey(testApp, owner, { permissions: [] });
    const given = await update(testApp, owner, forever.body.id, {
      permissions: [],
      expires_at: iso(T0 + HOUR),
    });
    expect(given.json()).toMatchObject({ expires_at: iso(T0 + HOUR) });
    const stillNone = await update(testApp, owner, owner.id, {
      permissions: [],
      all_future_permissions: true,
      expires_at: null,
    });
    expect(stillNone.json()).toMatchObject({ expires_at: null });
  });

  test.each([
    [
      "a later expiry",
      iso(T0 + 3 * HOUR),
      "an expiry can only be brought forward; roll or create a key instead",
    ],
    ["null", null, "an expiry can only be brought forward; roll or create a key instead"],
    ["a time in the past", iso(T0 - 1), "must be in the future"],
    ["a date without a time", "2027-01-01", "RFC 3339"],
    ["a number", 1_900_000_000, "string"],
  ])("%s is a 400 naming expires_at, and nothing is stored", async (_label, value, message) => {
    const { testApp, owner } = await setup();
    const { body } = await postKey(testApp, owner, { permissions: [], expires_at: iso(T0 + 2 * HOUR) });
    const before = (await read(testApp, owner.headers, body.id)).json();
    const response = await update(testApp, owner, body.id, {
      name: "changed",
      permissions: [],
      expires_at: value,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "invalid_request" });
    expect(response.json().message).toContain(message);
    expect(response.json().validation_errors.map((issue: { path: string }) => issue.path)).toEqual([
      "/expires_at",
    ]);
    const after = (await read(testApp, owner.headers, body.id)).json();
    expect({ ...after, last_used_at: null }).toEqual({ ...before, last_used_at: null });
  });

  test("a create with an expiry in the past is a 400 naming expires_at, and no key is made", async () => {
    const { testApp, owner } = await setup();
    const response = (await postKey(testApp, owner, { permissions: [], expires_at: iso(T0) })).response;
    expect(response.statusCode).toBe(400);
    expect(response.json().validation_errors).toEqual([{ path: "/expires_at", message: expect.any(String) }]);
    const list = await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: owner.headers });
    expect(list.json().data).toHaveLength(1);
  });
});

describe("the organization's longest key lifetime", () => {
  test("a create without expires_at gets created_at + the maximum; a later one is a 400", async () => {
    const { testApp, owner, clock } = await setup();
    await changeOrganizationLimits(testApp.services, owner.orgId, { maxKeyLifetimeDays: 30 });
    const defaulted = await postKey(testApp, owner, { permissions: [] });
    expect(defaulted.body.expires_at).toBe(iso(T0 + 30 * 24 * HOUR));
    const within = await postKey(testApp, owner, { permissions: [], expires_at: iso(T0 + 24 * HOUR) });
    expect(within.body.expires_at).toBe(iso(T0 + 24 * HOUR));
    clock.advance(1);
    const later = await postKey(testApp, owner, { permissions: [], expires_at: iso(T0 + 31 * 24 * HOUR) });
    expect(later.response.statusCode).toBe(400);
    expect(later.response.json().message).toContain("30 days");
    expect(later.response.json().validation_errors[0].path).toBe("/expires_at");
    await changeOrganizationLimits(testApp.services, owner.orgId, { maxKeyLifetimeDays: null });
    expect((await postKey(testApp, owner, { permissions: [] })).body.expires_at).toBeNull();
  });
});
