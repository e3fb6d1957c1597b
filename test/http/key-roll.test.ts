import { describe, expect, test } from "vitest";
import { basicAuth, fakeClock, ownerApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { keyWith, rateLimitOf, seedKey, UNKNOWN_KEY_ID } from "../helpers/http-keys.js";

/** `POST /v1/api-keys/{id}/roll` (docs/key-lifecycle.md), with a fake clock. */

const T0 = Date.parse("2026-11-22T10:00:00.000Z");

const roll = (testApp: TestApp, caller: TestKey, id: string, payload?: unknown) =>
  testApp.app.inject({
    method: "POST",
    url: `/v1/api-keys/${id}/roll`,
    headers: caller.headers,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

const status = async (testApp: TestApp, headers: Record<string, string>, id: string) =>
  (await testApp.app.inject({ method: "GET", url: `/v1/api-keys/${id}`, headers })).statusCode;

async function setup() {
  const clock = fakeClock(T0);
  const { testApp, owner } = await ownerApp({ clock });
  const key = await seedKey(testApp, owner, { name: "service", permissions: ["api_keys:read"] });
  return { testApp, owner, clock, key };
}

describe("rolling a key", () => {
  test("keeps its id and api_id, returns a new secret once, and the old one works until the overlap ends", async () => {
    const { testApp, owner, clock, key } = await setup();
    const response = await roll(testApp, owner, key.id, { overlap_seconds: 60 });
    expect(response.statusCode).toBe(200);
    expect(rateLimitOf(response)?.group).toBe("api-key:write");
    const rolled = response.json();
    expect(rolled).toMatchObject({
      id: key.id,
      api_id: key.apiId,
      name: "service",
      previous_secret_expires_at: "2026-11-22T10:01:00.000Z",
    });
    expect(rolled.api_key).toMatch(/^lksk_[0-9A-Za-z]{38}$/);
    expect(rolled.api_key).not.toBe(key.secret);
    const fresh = basicAuth(key.apiId, rolled.api_key);
    expect(await status(testApp, fresh, key.id)).toBe(200);
    clock.set(T0 + 59_999);
    expect(await status(testApp, key.headers, key.id)).toBe(200);
    clock.set(T0 + 60_000);
    expect(await status(testApp, key.headers, key.id)).toBe(401);
    expect(await status(testApp, fresh, key.id)).toBe(200);
    const read = await testApp.app.inject({ method: "GET", url: `/v1/api-keys/${key.id}`, headers: fresh });
    expect(read.body).not.toContain(rolled.api_key);
  });

  test("without a body the old secret works for the default hour; with overlap 0 it is refused at once", async () => {
    const { testApp, owner, clock, key } = await setup();
    const first = await roll(testApp, owner, key.id);
    expect(first.statusCode).toBe(200);
    expect(first.json().previous_secret_expires_at).toBe("2026-11-22T11:00:00.000Z");
    clock.set(T0 + 3_599_999);
    expect(await status(testApp, key.headers, key.id)).toBe(200);
    clock.set(T0 + 3_600_000);
    expect(await status(testApp, key.headers, key.id)).toBe(401);
    const afterFirst = basicAuth(key.apiId, first.json().api_key);
    const second = await roll(testApp, owner, key.id, { overlap_seconds: 0 });
    expect(second.json().previous_secret_expires_at).toBe("2026-11-22T11:00:00.000Z");
    expect(await status(testApp, afterFirst, key.id)).toBe(401);
    expect(await status(testApp, basicAuth(key.apiId, second.json().api_key), key.id)).toBe(200);
  });

  test("a second roll during an overlap ends the first one at once: never more than two secrets", async () => {
    const { testApp, owner, key } = await setup();
    const first = (await roll(testApp, owner, key.id, { overlap_seconds: 3600 })).json();
    const second = (await roll(testApp, owner, key.id, { overlap_seconds: 3600 })).json();
    expect(await status(testApp, key.headers, key.id)).toBe(401);
    expect(await status(testApp, basicAuth(key.apiId, first.api_key), key.id)).toBe(200);
    expect(await status(testApp, basicAuth(key.apiId, second.api_key), key.id)).toBe(200);
  });

  test("a key may roll itself, and the roll is audited without any secret", async () => {
    const { testApp, owner } = await setup();
    const self = await seedKey(testApp, owner, { permissions: ["api_keys:create_update", "audit:read"] });
    const rolled = await roll(testApp, self, self.id, { overlap_seconds: 10 });
    expect(rolled.statusCode).toBe(200);
    const audit = await testApp.app.inject({
      method: "GET",
      url: "/v1/audit?count=100",
      headers: owner.headers,
    });
    const entry = (audit.json().data as Array<Record<string, unknown>>).find(
      (e) => e.action === "api_key.roll",
    );
    expect(entry).toMatchObject({ actor: self.id, target_id: self.id });
    expect(audit.body).not.toContain(rolled.json().api_key);
    expect(audit.body).not.toContain(self.secret);
  });

  test("needs api_keys:create_update and authority over the key's permissions", async () => {
    const { testApp, owner, key } = await setup();
    const reader = await keyWith(testApp, owner, ["api_keys:read"]);
    expect((await roll(testApp, reader, key.id)).json()).toMatchObject({ code: "missing_permission" });
    const writer = await keyWith(testApp, owner, ["api_keys:create_update"]);
    const refused = await roll(testApp, writer, key.id);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: "insufficient_authority" });
    expect(refused.json().message).toContain("api_keys:read");
    expect(await status(testApp, key.headers, key.id)).toBe(200);
    expect((await roll(testApp, owner, UNKNOWN_KEY_ID)).statusCode).toBe(404);
  });
});

describe("bad roll input", () => {
  test.each([
    ["an overlap of 604,801 seconds", { overlap_seconds: 604_801 }],
    ["a non-integer overlap", { overlap_seconds: 1.5 }],
    ["an overlap given as text", { overlap_seconds: "60" }],
    ["a negative overlap", { overlap_seconds: -1 }],
    ["an unknown member", { overlap: 60 }],
  ])("%s is a 400 naming the field, and the secret is unchanged", async (_label, payload) => {
    const { testApp, owner, key } = await setup();
    const response = await roll(testApp, owner, key.id, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "invalid_request" });
    const paths = (response.json().validation_errors as { path: string }[]).map((issue) => issue.path);
    expect(paths.some((path) => path.includes("overlap"))).toBe(true);
    expect(await status(testApp, key.headers, key.id)).toBe(200);
  });

  test("the longest overlap, a week, is accepted", async () => {
    const { testApp, owner, key } = await setup();
    const response = await roll(testApp, owner, key.id, { overlap_seconds: 604_800 });
    expect(response.json().previous_secret_expires_at).toBe("2026-11-29T10:00:00.000Z");
  });
});
