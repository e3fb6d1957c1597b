import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { adminApp } from "../helpers/admin.js";
import { fakeClock, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { keyWith } from "../helpers/http-keys.js";
import { platformApp } from "../helpers/platform.js";
import { tempDir } from "../helpers/processes.js";

const HOUR = 3_600_000;
const START = Date.parse("2026-11-22T10:00:00.000Z");

function exportOf(testApp: TestApp, key: TestKey, query: string) {
  return testApp.app.inject({ method: "GET", url: `/v1/usage/export?${query}`, headers: key.headers });
}

const lines = (body: string) =>
  body
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** An app at START whose owner made, per hour: 10:xx two credited allows and a refusal, 11:xx one allow. */
async function withDecisions() {
  const clock = fakeClock(START + 5 * 60_000);
  const platform = await platformApp({ clock });
  const { testApp, owner, authorize } = platform;
  const images = { authorization: owner.headers.authorization, permission: "images:create", credits: 2 };
  expect((await authorize(images)).json().allowed).toBe(true);
  expect((await authorize(images)).json().allowed).toBe(true);
  const creator = await keyWith(testApp, owner, ["images:read"]);
  const refused = await authorize({
    authorization: creator.headers.authorization,
    permission: "images:create",
  });
  expect(refused.json()).toMatchObject({ allowed: false, status: 403 });
  // Unknown credentials prove no organization: not counted anywhere.
  await authorize({ authorization: "Basic bm9ib2R5Om5vdGhpbmc=", permission: "images:create" });
  clock.advance(HOUR);
  await authorize({ ...images, credits: 1 });
  return { ...platform, clock };
}

describe("GET /v1/usage/export", () => {
  test("NDJSON: one line per hour with images and the decisions allowed and refused, oldest first", async () => {
    const { testApp, owner } = await withDecisions();
    const response = await exportOf(testApp, owner, "from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z");
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/x-ndjson");
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(lines(response.body)).toEqual([
      {
        organization_id: owner.orgId,
        start: "2026-11-22T10:00:00.000Z",
        end: "2026-11-22T11:00:00.000Z",
        images: 4,
        decisions: { allowed: 2, refused: 1 },
      },
      {
        organization_id: owner.orgId,
        start: "2026-11-22T11:00:00.000Z",
        end: "2026-11-22T12:00:00.000Z",
        images: 1,
        decisions: { allowed: 1, refused: 0 },
      },
    ]);
  });

  test("CSV per day: the documented header, CRLF lines, a day clipped to the range", async () => {
    const { testApp, owner } = await withDecisions();
    const response = await exportOf(
      testApp,
      owner,
      "from=2026-11-22T10:00:00Z&to=2026-11-23T00:00:00Z&granularity=day&format=csv",
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(response.body).toBe(
      "organization_id,start,end,images,decisions_allowed,decisions_refused\r\n" +
        `${owner.orgId},2026-11-22T10:00:00.000Z,2026-11-23T00:00:00.000Z,5,3,1\r\n`,
    );
  });

  test("only the caller's organization, only the range asked for", async () => {
    const { testApp, owner, authorize } = await withDecisions();
    const other = await testApp.createOrganization("other");
    await authorize({ authorization: other.headers.authorization, permission: "images:create", credits: 7 });
    const mine = await exportOf(testApp, owner, "from=2026-11-22T11:00:00Z&to=2026-11-22T12:00:00Z");
    expect(lines(mine.body)).toEqual([expect.objectContaining({ organization_id: owner.orgId, images: 1 })]);
    const theirs = await exportOf(testApp, other, "from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z");
    expect(lines(theirs.body)).toEqual([
      expect.objectContaining({
        organization_id: other.orgId,
        images: 7,
        decisions: { allowed: 1, refused: 0 },
      }),
    ]);
    const empty = await exportOf(
      testApp,
      owner,
      "from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z&format=csv",
    );
    expect(empty.body).toBe("organization_id,start,end,images,decisions_allowed,decisions_refused\r\n");
  });

  test("management requests are not decisions of the export; a rate-limit refusal is", async () => {
    const clock = fakeClock(START);
    const { testApp, owner, authorize } = await platformApp({ clock });
    for (let i = 0; i < 3; i++) {
      await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: owner.headers });
    }
    const read = {
      authorization: owner.headers.authorization,
      permission: "proxies:read",
      group: "proxy:read",
    };
    await testApp.services.limitOverrides.set(
      owner.orgId,
      "proxy:read",
      { policies: [{ quota: 1, windowSeconds: 60 }], per: "organization" },
      "test",
    );
    expect((await authorize(read)).json().allowed).toBe(true);
    expect((await authorize(read)).json()).toMatchObject({ allowed: false, status: 429 });
    const response = await exportOf(testApp, owner, "from=2026-11-22T10:00:00Z&to=2026-11-22T11:00:00Z");
    expect(lines(response.body)).toEqual([
      expect.objectContaining({ images: 0, decisions: { allowed: 1, refused: 1 } }),
    ]);
  });

  test("forward-auth decisions are counted like authorize's", async () => {
    const routes = join(tempDir(), "routes.json");
    writeFileSync(
      routes,
      JSON.stringify([{ method: "POST", path: "/v1/image", permission: "images:create" }]),
    );
    const { testApp, owner, serviceToken } = await platformApp({
      env: { LATCHKEY_ROUTES: routes },
      clock: fakeClock(START),
    });
    const reader = await keyWith(testApp, owner, ["images:read"]);
    for (const key of [owner, owner, reader]) {
      await testApp.app.inject({
        method: "GET",
        url: "/v1/forward-auth",
        headers: {
          "x-latchkey-service-token": serviceToken,
          "x-forwarded-method": "POST",
          "x-forwarded-uri": "/v1/image",
          ...key.headers,
        },
      });
    }
    const response = await exportOf(testApp, owner, "from=2026-11-22T10:00:00Z&to=2026-11-22T11:00:00Z");
    expect(lines(response.body)).toEqual([
      expect.objectContaining({ images: 0, decisions: { allowed: 2, refused: 1 } }),
    ]);
  });

  test("needs usage:read; is not rate-limited", async () => {
    const { testApp, owner } = await platformApp();
    const query = "from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z";
    const anonymous = await testApp.app.inject({ method: "GET", url: `/v1/usage/export?${query}` });
    expect(anonymous.statusCode).toBe(401);
    const creator = await keyWith(testApp, owner, ["images:create"]);
    const forbidden = await exportOf(testApp, creator, query);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().message).toContain("usage:read");
    const allowed = await exportOf(testApp, owner, query);
    expect(allowed.headers.ratelimit).toBeUndefined();
  });

  test.each([
    ["format=xml", "/query/format"],
    ["granularity=minute", "/query/granularity"],
    ["from=yesterday", "/query/from"],
    ["from=2026-11-22T10:30:00Z", "/query/from"],
    ["to=2026-11-22T10:00:00.500Z", "/query/to"],
    ["to=2026-11-21T00:00:00Z", "/query/to"],
    ["to=2026-11-22T00:00:00Z", "/query/to"],
    ["to=2026-12-23T01:00:00Z", "/query/to"],
    ["unknown=1", "/query/unknown"],
  ])("bad input %s: 400 invalid_request naming %s", async (change, path) => {
    const { testApp, owner } = await platformApp();
    const query = new URLSearchParams({ from: "2026-11-22T00:00:00Z", to: "2026-11-23T00:00:00Z" });
    const [name, value] = change.split("=") as [string, string];
    query.set(name, value);
    const response = await exportOf(testApp, owner, query.toString());
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toMatchObject({ statusCode: 400, error: "Bad Request", code: "invalid_request" });
    expect(body.validation_errors.map((issue: { path: string }) => issue.path)).toContain(path);
  });

  test("31 days exactly is allowed; without from or to: 400", async () => {
    const { testApp, owner } = await platformApp();
    const month = await exportOf(testApp, owner, "from=2026-11-01T00:00:00Z&to=2026-12-02T00:00:00Z");
    expect(month.statusCode).toBe(200);
    const missing = await exportOf(testApp, owner, "from=2026-11-01T00:00:00Z");
    expect(missing.statusCode).toBe(400);
    expect(missing.json().validation_errors[0].path).toBe("/query/to");
  });
});

describe("GET /v1/admin/usage/export", () => {
  test("every organization's rows with its external_id (null when none), NDJSON and CSV", async () => {
    const clock = fakeClock(START);
    const { testApp, admin } = await adminApp({ clock });
    const created = await admin("POST", "/v1/admin/organizations", {
      name: "acme",
      external_id: 'cus_1,"a"',
    });
    const acme = created.json();
    const plain = await testApp.createOrganization("plain");
    const { token } = await testApp.services.serviceTokens.create("renderer");
    for (const [authorization, credits] of [
      [`Basic ${Buffer.from(`${acme.key.api_id}:${acme.key.api_key}`).toString("base64")}`, 3],
      [plain.headers.authorization, 1],
    ] as const) {
      const answer = await testApp.app.inject({
        method: "POST",
        url: "/v1/authorize",
        headers: { "x-latchkey-service-token": token },
        payload: { authorization, permission: "images:create", credits },
      });
      expect(answer.json().allowed).toBe(true);
    }
    const range = "from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z";
    const ndjson = await admin("GET", `/v1/admin/usage/export?${range}`);
    expect(ndjson.statusCode).toBe(200);
    const rows = lines(ndjson.body);
    expect(rows).toHaveLength(2);
    expect(rows).toContainEqual({
      organization_id: acme.organization.id,
      external_id: 'cus_1,"a"',
      start: "2026-11-22T10:00:00.000Z",
      end: "2026-11-22T11:00:00.000Z",
      images: 3,
      decisions: { allowed: 1, refused: 0 },
    });
    expect(rows).toContainEqual(expect.objectContaining({ organization_id: plain.orgId, external_id: null }));
    // By organization id.
    expect(rows.map((row) => row.organization_id)).toEqual([acme.organization.id, plain.orgId].sort());

    const csv = await admin("GET", `/v1/admin/usage/export?${range}&format=csv`);
    expect(csv.headers["content-type"]).toBe("text/csv; charset=utf-8");
    const csvLines = csv.body.split("\r\n");
    expect(csvLines[0]).toBe(
      "organization_id,start,end,images,decisions_allowed,decisions_refused,external_id",
    );
    expect(csvLines).toContain(
      `${acme.organization.id},2026-11-22T10:00:00.000Z,2026-11-22T11:00:00.000Z,3,1,0,"cus_1,""a"""`,
    );
    expect(csvLines).toContain(`${plain.orgId},2026-11-22T10:00:00.000Z,2026-11-22T11:00:00.000Z,1,1,0,`);
  });

  test("needs a service token with the provision scope; an organization's key is not one", async () => {
    const { testApp, admin } = await adminApp();
    const owner = await testApp.createOrganization();
    const range = "from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z";
    expect(
      (await admin("GET", `/v1/admin/usage/export?${range}`, undefined, { token: null })).json().code,
    ).toBe("invalid_service_token");
    const { token } = await testApp.services.serviceTokens.create("renderer");
    const scoped = await admin("GET", `/v1/admin/usage/export?${range}`, undefined, { token });
    expect(scoped.statusCode).toBe(403);
    expect(scoped.json().code).toBe("missing_scope");
    const byKey = await testApp.app.inject({
      method: "GET",
      url: `/v1/admin/usage/export?${range}`,
      headers: owner.headers,
    });
    expect(byKey.statusCode).toBe(401);
  });

  test("a range over 31 days: 400 with validation_errors", async () => {
    const { admin } = await adminApp();
    const response = await admin(
      "GET",
      "/v1/admin/usage/export?from=2026-10-01T00:00:00Z&to=2026-11-02T00:00:00Z",
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: "invalid_request",
      validation_errors: [{ path: "/query/to", message: expect.stringContaining("31 days") }],
    });
  });
});
