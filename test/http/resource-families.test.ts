import { describe, expect, test } from "vitest";
import { RATE_LIMIT_GROUPS } from "../../src/domain/rate-limit-groups.js";
import {
  OG_CONFIGS,
  PROXIES,
  RESOURCE_FAMILIES,
  STORAGE_DESTINATIONS,
} from "../../src/domain/resource-families.js";
import { MAX_SETTINGS_BYTES } from "../../src/domain/resource-schemas.js";
import {
  fakeClock,
  ownerApp,
  sharedOwnerApp,
  type TestApp,
  type TestKey,
} from "../helpers/build-test-app.js";
import { keyWith, rateLimitOf, repeat } from "../helpers/http-keys.js";
import { RESOURCE_ROUTES, recordsOf, resourceRequest, seedResource } from "../helpers/resource-routes.js";

/** What a user of the three families notices (docs/resource-families.md), for each family. */

// One app for the file's tests that need no clock of their own (building one was most of a test's
// time); each gets an organization of its own in it, so no test sees another's records or slots.
const sharedOwner = sharedOwnerApp();

/** A settings object whose JSON text is exactly `bytes` bytes long. */
function settingsOfSize(bytes: number, filler = "x"): Record<string, unknown> {
  const overhead = JSON.stringify({ v: "" }).length;
  const fillerBytes = Buffer.byteLength(filler);
  const settings = { v: filler.repeat(Math.floor((bytes - overhead) / fillerBytes)) };
  settings.v += "y".repeat(bytes - Buffer.byteLength(JSON.stringify(settings)));
  expect(Buffer.byteLength(JSON.stringify(settings))).toBe(bytes);
  return settings;
}

describe.each(RESOURCE_FAMILIES)("$name", (family) => {
  const { path } = family;
  const post = (t: { app: TestApp["app"]; owner: TestKey }, url: string, payload: unknown) =>
    t.app.inject({
      method: "POST",
      url,
      headers: t.owner.headers,
      payload: payload as Record<string, unknown>,
    });

  test("create applies the defaults and returns the record; retrieve shows the same", async () => {
    const t = await ownerApp({ clock: fakeClock() });
    const created = await post(t, path, { name: "edge" });
    expect(created.statusCode).toBe(200);
    const record = created.json();
    expect(Object.keys(record).sort()).toEqual([
      "created_at",
      "enabled",
      "id",
      "name",
      "settings",
      "updated_at",
    ]);
    expect(record).toMatchObject({
      name: "edge",
      enabled: true,
      settings: {},
      created_at: "2026-11-22T10:00:00.000Z",
      updated_at: "2026-11-22T10:00:00.000Z",
    });
    expect(record.id).toMatch(new RegExp(`^${family.idPrefix}[0-9A-Za-z]{22}$`));
    const read = await t.app.inject({ method: "GET", url: `${path}/${record.id}`, headers: t.owner.headers });
    expect(read.json()).toEqual(record);
  });

  test("update replaces the whole content: omitted members return to their defaults", async () => {
    const t = await ownerApp({ clock: fakeClock() });
    const created = (
      await post(t, path, { name: "a", disabled: true, settings: { region: "eu", n: [1, 2] } })
    ).json();
    expect(created).toMatchObject({ enabled: false, settings: { region: "eu", n: [1, 2] } });
    t.testApp.clock?.advance(5_000);
    const updated = await post(t, `${path}/${created.id}`, { name: "b" });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toEqual({
      ...created,
      name: "b",
      enabled: true,
      settings: {},
      updated_at: "2026-11-22T10:00:05.000Z",
    });
    const read = await t.app.inject({
      method: "GET",
      url: `${path}/${created.id}`,
      headers: t.owner.headers,
    });
    expect(read.json()).toEqual(updated.json());
  });

  test("settings up to 16 KiB as JSON are kept exactly; one byte more is 400 and changes nothing", async () => {
    const t = await sharedOwner();
    const fits = settingsOfSize(MAX_SETTINGS_BYTES);
    const created = await post(t, path, { name: "big", settings: fits });
    expect(created.statusCode).toBe(200);
    expect(created.json().settings).toEqual(fits);
    for (const tooBig of [
      settingsOfSize(MAX_SETTINGS_BYTES + 1),
      settingsOfSize(MAX_SETTINGS_BYTES + 1, "é"),
    ]) {
      const refused = await post(t, path, { name: "too big", settings: tooBig });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().validation_errors).toEqual([expect.objectContaining({ path: "/settings" })]);
      expect(refused.json().message).toContain("16384");
      const update = await post(t, `${path}/${created.json().id}`, { name: "too big", settings: tooBig });
      expect(update.statusCode).toBe(400);
    }
    expect(await recordsOf(t.testApp, t.owner, family)).toEqual([created.json()]);
  });

  test("settings nested 32 levels deep are kept; deeper (even 30,000 levels) is 400, never 500", async () => {
    const t = await sharedOwner();
    const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
    const send = (levels: number) =>
      t.app.inject({
        method: "POST",
        url: path,
        headers: { ...t.owner.headers, "content-type": "application/json" },
        payload: `{"name": "deep", "settings": {"v": ${nested(levels)}}}`,
      });
    expect((await send(31)).statusCode).toBe(200);
    for (const levels of [32, 5_000, 30_000]) {
      const refused = await send(levels);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().validation_errors).toEqual([expect.objectContaining({ path: "/settings" })]);
      expect(refused.json().message).toContain("32 levels");
    }
  });

  test("multi-byte settings are measured in bytes, not characters", async () => {
    const t = await sharedOwner();
    // 6,000 characters of "é" are 12,000 bytes: fine; 9,000 are 18,000 bytes: too big.
    expect((await post(t, path, { name: "é", settings: { v: "é".repeat(6_000) } })).statusCode).toBe(200);
    expect((await post(t, path, { name: "é", settings: { v: "é".repeat(9_000) } })).statusCode).toBe(400);
  });

  test.each([
    ["an empty name", { name: "" }, "/name"],
    ["a blank name", { name: "  \t " }, "/name"],
    ["no name", { settings: {} }, "/name"],
    ["a null name", { name: null }, "/name"],
    ["a 256-character name", { name: "n".repeat(256) }, "/name"],
    ["a number as name", { name: 7 }, "/name"],
    ["the string 'true' as disabled", { name: "a", disabled: "true" }, "/disabled"],
    ["an array as settings", { name: "a", settings: [1] }, "/settings"],
    ["null as settings", { name: "a", settings: null }, "/settings"],
    ["the record's enabled member", { name: "a", enabled: false }, "/enabled"],
    ["an unknown member", { name: "a", url: "http://x" }, "/url"],
    ["a record's id", { name: "a", id: "prx_0000000000000000000000" }, "/id"],
  ])(
    "%s is 400 pointing at it, on create and update, and changes nothing",
    async (_label, payload, pointer) => {
      const t = await sharedOwner();
      const { id } = await seedResource(t.testApp, t.owner, family, { name: "kept", settings: { k: 1 } });
      const before = await recordsOf(t.testApp, t.owner, family);
      for (const url of [path, `${path}/${id}`]) {
        const response = await post(t, url, payload);
        expect(response.statusCode).toBe(400);
        expect(response.json().code).toBe("invalid_request");
        expect(response.json().validation_errors).toEqual(
          expect.arrayContaining([expect.objectContaining({ path: pointer })]),
        );
      }
      expect(await recordsOf(t.testApp, t.owner, family)).toEqual(before);
    },
  );

  test("the enabled member gets a hint that the request field is disabled", async () => {
    const t = await sharedOwner();
    const response = await post(t, path, { name: "a", enabled: true });
    expect(response.json().message).toContain('"disabled"');
  });

  test("names of 1 and 255 characters (code points, emoji included) are accepted", async () => {
    const t = await sharedOwner();
    for (const name of ["a", "n".repeat(255), "🔑".repeat(255)]) {
      const response = await post(t, path, { name });
      expect(response.statusCode).toBe(200);
      expect(response.json().name).toBe(name);
    }
  });

  test("delete removes the record: then 404 on retrieve and update, gone from the list; repeating it is 204", async () => {
    const t = await sharedOwner();
    const { id } = await seedResource(t.testApp, t.owner, family);
    const remove = () => t.app.inject({ method: "DELETE", url: `${path}/${id}`, headers: t.owner.headers });
    const first = await remove();
    expect(first.statusCode).toBe(204);
    expect(first.body).toBe("");
    expect(
      (await t.app.inject({ method: "GET", url: `${path}/${id}`, headers: t.owner.headers })).statusCode,
    ).toBe(404);
    expect((await post(t, `${path}/${id}`, { name: "back?" })).statusCode).toBe(404);
    expect(await recordsOf(t.testApp, t.owner, family)).toEqual([]);
    const again = await remove();
    expect(again.statusCode).toBe(204);
    expect(again.headers["cache-control"]).toBe("no-store");
    expect(rateLimitOf(again)?.group).toBe(family.groups.write);
  });

  test("a repeated delete by another organization is still 404: it never learns the id existed", async () => {
    const t = await sharedOwner();
    const { id } = await seedResource(t.testApp, t.owner, family);
    await t.app.inject({ method: "DELETE", url: `${path}/${id}`, headers: t.owner.headers });
    const stranger = await t.testApp.createOrganization("stranger");
    const response = await t.app.inject({
      method: "DELETE",
      url: `${path}/${id}`,
      headers: stranger.headers,
    });
    expect(response.statusCode).toBe(404);
  });

  test("the list is newest first, includes disabled records, and pages neither repeat nor skip", async () => {
    const clock = fakeClock();
    const t = await ownerApp({ clock });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      clock.advance(1);
      ids.push((await seedResource(t.testApp, t.owner, family, { name: `r${i}`, disabled: i % 2 === 0 })).id);
    }
    const seen: string[] = [];
    let url = `${path}?count=3`;
    for (;;) {
      const page = await t.app.inject({ method: "GET", url, headers: t.owner.headers });
      expect(page.statusCode).toBe(200);
      seen.push(...page.json().data.map((record: { id: string }) => record.id));
      // A record created meanwhile does not shift the following pages.
      clock.advance(1);
      await seedResource(t.testApp, t.owner, family, { name: "late" });
      const next = page.json().pagination.next_page_start;
      if (next === null) break;
      url = `${path}?count=3&page_start=${next}`;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  test("the default page is 10 records", async () => {
    const t = await sharedOwner();
    for (let i = 0; i < 11; i++) await seedResource(t.testApp, t.owner, family);
    const page = await t.app.inject({ method: "GET", url: path, headers: t.owner.headers });
    expect(page.json().data).toHaveLength(10);
    expect(page.json().pagination.next_page_start).toEqual(expect.any(String));
  });

  test("counts against its own groups only: the 21st write is 429 with the API keys' body and headers", async () => {
    const t = await ownerApp({ clock: fakeClock() });
    const create = { method: "POST", url: path, headers: t.owner.headers, payload: { name: "w" } } as const;
    expect(await repeat(t.testApp, 20, create)).toEqual(Array(20).fill(200));
    const before = await recordsOf(t.testApp, t.owner, family);
    const refused = await t.app.inject(create);
    expect(refused.statusCode).toBe(429);
    expect(Object.keys(refused.json()).sort()).toEqual(["code", "error", "message", "statusCode"]);
    expect(refused.json()).toMatchObject({
      statusCode: 429,
      error: "Too Many Requests",
      code: "rate_limited",
    });
    expect(refused.json().message).toBe(
      `Rate limit exceeded. The ${family.groups.write} operation group allows 20 requests per minute per organization. If you need a higher limit, contact support.`,
    );
    expect(refused.headers["retry-after"]).toBe("60");
    expect(refused.headers["ratelimit-policy"]).toBe(`"${family.groups.write}";q=20;w=60`);
    expect(rateLimitOf(refused)).toEqual({ group: family.groups.write, remaining: 0 });
    expect(refused.headers["cache-control"]).toBe("no-store");
    expect(await recordsOf(t.testApp, t.owner, family)).toEqual(before);
    // Update and delete share the exhausted write group; reads and every other family are untouched.
    const { id } = before[0] ?? { id: "" };
    expect((await post(t, `${path}/${id}`, { name: "u" })).statusCode).toBe(429);
    expect(
      (await t.app.inject({ method: "DELETE", url: `${path}/${id}`, headers: t.owner.headers })).statusCode,
    ).toBe(429);
    const read = await t.app.inject({ method: "GET", url: path, headers: t.owner.headers });
    expect(rateLimitOf(read)).toEqual({ group: family.groups.read, remaining: 99 });
    for (const other of RESOURCE_FAMILIES.filter((candidate) => candidate !== family)) {
      const write = await post(t, other.path, { name: "elsewhere" });
      expect(rateLimitOf(write)).toEqual({ group: other.groups.write, remaining: 19 });
    }
    const keys = await t.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: t.owner.headers,
      payload: { permissions: [] },
    });
    expect(rateLimitOf(keys)).toEqual({ group: "api-key:write", remaining: 19 });
  });

  test("the 101st read is 429 naming the family's read group", async () => {
    const t = await ownerApp({ clock: fakeClock() });
    const { id } = await seedResource(t.testApp, t.owner, family);
    const list = { method: "GET", url: path, headers: t.owner.headers } as const;
    expect(await repeat(t.testApp, 60, list)).toEqual(Array(60).fill(200));
    const get = { method: "GET", url: `${path}/${id}`, headers: t.owner.headers } as const;
    expect(await repeat(t.testApp, 41, get)).toEqual([...Array(40).fill(200), 429]);
    const refused = await t.app.inject(list);
    expect(refused.json().message).toContain(`${family.groups.read} operation group allows 100 requests`);
  });
});

describe("plan restrictions (org plan --proxies off / --storage-destinations off)", () => {
  const gated = [
    { family: PROXIES, feature: "proxies", words: "proxies" },
    { family: STORAGE_DESTINATIONS, feature: "storageDestinations", words: "storage destinations" },
  ] as const;

  test.each(gated)(
    "$family.name switched off: every route is 403 plan_restricted, not counted",
    async (c) => {
      const t = await sharedOwner();
      const { id } = await seedResource(t.testApp, t.owner, c.family);
      await t.testApp.services.plans.change(t.owner.orgId, { [c.feature]: false });
      const routes = RESOURCE_ROUTES.filter((route) => route.family === c.family);
      for (const route of routes) {
        const response = await t.app.inject(resourceRequest(route, id, t.owner.headers));
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({
          statusCode: 403,
          error: "Forbidden",
          code: "plan_restricted",
        });
        expect(response.json().message).toContain(c.words);
        expect(response.headers["cache-control"]).toBe("no-store");
        expect(response.headers.ratelimit).toBeUndefined();
      }
      // Nothing changed, and the other families still work.
      expect(await recordsOf(t.testApp, t.owner, c.family)).toHaveLength(1);
      for (const other of RESOURCE_FAMILIES.filter((family) => family !== c.family)) {
        const ok = await t.app.inject({ method: "GET", url: other.path, headers: t.owner.headers });
        expect(ok.statusCode).toBe(200);
      }
      // Switched on again, the records are there and no request was counted while off.
      await t.testApp.services.plans.change(t.owner.orgId, { [c.feature]: true });
      const list = await t.app.inject({ method: "GET", url: c.family.path, headers: t.owner.headers });
      expect(list.json().data).toHaveLength(1);
      expect(rateLimitOf(list)).toEqual({ group: c.family.groups.read, remaining: 99 });
    },
  );

  test("a missing permission is reported before the plan restriction", async () => {
    const t = await sharedOwner();
    await t.testApp.services.plans.change(t.owner.orgId, { proxies: false });
    const caller = await keyWith(t.testApp, t.owner, ["og_configs:read"]);
    const response = await t.app.inject({ method: "GET", url: PROXIES.path, headers: caller.headers });
    expect(response.json().code).toBe("missing_permission");
  });

  test("the external id is restricted with storage destinations; OG configurations cannot be switched off", async () => {
    const t = await sharedOwner();
    await t.testApp.services.plans.change(t.owner.orgId, { proxies: false, storageDestinations: false });
    const external = await t.app.inject({
      method: "GET",
      url: "/v1/storage-destinations/aws-external-id",
      headers: t.owner.headers,
    });
    expect(external.json().code).toBe("plan_restricted");
    expect(OG_CONFIGS.planFeature).toBeUndefined();
    const og = await t.app.inject({ method: "GET", url: OG_CONFIGS.path, headers: t.owner.headers });
    expect(og.statusCode).toBe(200);
  });
});

describe("GET /v1/storage-destinations/aws-external-id", () => {
  const url = "/v1/storage-destinations/aws-external-id";

  test("is stable per organization and differs between organizations", async () => {
    const t = await sharedOwner();
    const first = await t.app.inject({ method: "GET", url, headers: t.owner.headers });
    expect(first.statusCode).toBe(200);
    expect(first.headers["cache-control"]).toBe("no-store");
    expect(Object.keys(first.json())).toEqual(["external_id"]);
    expect(first.json().external_id).toMatch(/^[\w+=,.@:/-]{2,1224}$/);
    const second = await t.app.inject({ method: "GET", url, headers: t.owner.headers });
    expect(second.json()).toEqual(first.json());
    const stranger = await t.testApp.createOrganization("stranger");
    const theirs = await t.app.inject({ method: "GET", url, headers: stranger.headers });
    expect(theirs.json().external_id).not.toBe(first.json().external_id);
  });

  test("needs storage_destinations:create_update (read is not enough) and counts against storage-destination:read", async () => {
    const t = await sharedOwner();
    const reader = await keyWith(t.testApp, t.owner, ["storage_destinations:read"]);
    const refused = await t.app.inject({ method: "GET", url, headers: reader.headers });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toContain("storage_destinations:create_update");
    const writer = await keyWith(t.testApp, t.owner, ["storage_destinations:create_update"]);
    const allowed = await t.app.inject({ method: "GET", url, headers: writer.headers });
    expect(allowed.statusCode).toBe(200);
    expect(rateLimitOf(allowed)).toEqual({ group: "storage-destination:read", remaining: 99 });
  });

  test("is 401 without credentials and 405 for other methods", async () => {
    const t = await sharedOwner();
    const anonymous = await t.app.inject({ method: "GET", url });
    expect(anonymous.statusCode).toBe(401);
    const put = await t.app.inject({ method: "POST", url, headers: t.owner.headers, payload: {} });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toBe("GET, HEAD");
  });
});

test("the OpenAPI document describes every family route with the one record schema", async () => {
  const t = await sharedOwner();
  const document = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json();
  for (const family of RESOURCE_FAMILIES) {
    expect(Object.keys(document.paths[family.path])).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(document.paths[`${family.path}/{id}`])).toEqual(
      expect.arrayContaining(["get", "post", "delete"]),
    );
    const reference = document.paths[family.path].post.requestBody.content["application/json"].schema;
    const body = document.components.schemas[reference.$ref.replace("#/components/schemas/", "")];
    expect(body.additionalProperties).toBe(false);
    expect(body.required).toEqual(["name"]);
  }
  expect(document.paths["/v1/storage-destinations/aws-external-id"].get).toBeDefined();
  expect(RATE_LIMIT_GROUPS).toEqual(
    expect.arrayContaining(RESOURCE_FAMILIES.flatMap((f) => [f.groups.read, f.groups.write])),
  );
});

describe.each(RESOURCE_FAMILIES)("order of checks on $name (docs/authority.md)", (family) => {
  const bad = { name: "", colour: "red" };
  const unknown = `${family.idPrefix}${"0".repeat(22)}`;

  test("401 comes before 400, 403 before 400, and 429 before 400", async () => {
    const t = await ownerApp({ clock: fakeClock() });
    const anonymous = await t.app.inject({ method: "POST", url: family.path, payload: bad });
    expect(anonymous.statusCode).toBe(401);
    const reader = await keyWith(t.testApp, t.owner, [family.permissions.read]);
    const denied = await t.app.inject({
      method: "POST",
      url: family.path,
      headers: reader.headers,
      payload: bad,
    });
    expect(denied.json().code).toBe("missing_permission");
    const create = {
      method: "POST",
      url: family.path,
      headers: t.owner.headers,
      payload: { name: "w" },
    } as const;
    await repeat(t.testApp, 20, create);
    const limited = await t.app.inject({ ...create, payload: bad });
    expect(limited.statusCode).toBe(429);
  });

  test("400 comes before 404, and both are counted against the write group", async () => {
    const t = await sharedOwner();
    const invalid = await t.app.inject({
      method: "POST",
      url: `${family.path}/${unknown}`,
      headers: t.owner.headers,
      payload: bad,
    });
    expect(invalid.statusCode).toBe(400);
    expect(rateLimitOf(invalid)).toEqual({ group: family.groups.write, remaining: 19 });
    const missing = await t.app.inject({
      method: "POST",
      url: `${family.path}/${unknown}`,
      headers: t.owner.headers,
      payload: { name: "ok" },
    });
    expect(missing.statusCode).toBe(404);
    expect(rateLimitOf(missing)).toEqual({ group: family.groups.write, remaining: 18 });
  });
});
