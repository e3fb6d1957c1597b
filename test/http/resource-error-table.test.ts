import { describe, expect, test } from "vitest";
import { RESOURCE_FAMILIES, type ResourceFamily } from "../../src/domain/resource-families.js";
import { buildTestApp, sharedOwnerApp } from "../helpers/build-test-app.js";
import { bodyShapeCases, expectErrorBody } from "../helpers/body-error-cases.js";
import { rateLimitOf } from "../helpers/http-keys.js";
import { recordsOf, seedResource, unknownId } from "../helpers/resource-routes.js";

/** docs/troubleshooting.md, every row that a family route can answer, for each of the three families. */

/** Seeds `count` records straight through the service: no request, no rate-limit slot. */
async function seedMany(
  testApp: Awaited<ReturnType<typeof buildTestApp>>,
  orgId: string,
  family: ResourceFamily,
  count: number,
) {
  const service = testApp.services.resources[family.name];
  for (let i = 0; i < count; i++) await service.create({ orgId }, { name: `seed ${i}` });
}

// One app for the file's tests but the one that breaks a service (building one was most of a test's
// time); each gets an organization of its own in it, so no test sees another's records or slots.
const sharedOwner = sharedOwnerApp();

describe.each(RESOURCE_FAMILIES)("$name", (family) => {
  const { path } = family;

  describe("400 invalid_request", () => {
    test("a bad body lists what is wrong with a JSON pointer to it", async () => {
      const { app, owner } = await sharedOwner();
      const response = await app.inject({
        method: "POST",
        url: path,
        headers: owner.headers,
        payload: { name: 42 },
      });
      expect(response.statusCode).toBe(400);
      expect(response.headers["cache-control"]).toBe("no-store");
      expectErrorBody(response.json(), 400, "Bad Request", "invalid_request");
      expect(response.json().validation_errors).toEqual([expect.objectContaining({ path: "/name" })]);
    });

    test.each([
      ["count=ten", "/query/count"],
      ["count=0", "/query/count"],
      ["count=101", "/query/count"],
      ["limit=5", "/query/limit"],
      ["include_disabled=true", "/query/include_disabled"],
    ])("the query %s is 400 naming %s", async (query, pointer) => {
      const { app, owner } = await sharedOwner();
      const response = await app.inject({ method: "GET", url: `${path}?${query}`, headers: owner.headers });
      expect(response.statusCode).toBe(400);
      expectErrorBody(response.json(), 400, "Bad Request", "invalid_request");
      expect(response.json().validation_errors).toEqual([expect.objectContaining({ path: pointer })]);
    });

    test.each([
      ["GET", undefined],
      ["POST", { name: "x" }],
      ["DELETE", undefined],
    ] as const)(
      "%s with an id of another kind (a key id, another family's id) is 400",
      async (method, payload) => {
        const { app, owner } = await sharedOwner();
        const otherFamily = RESOURCE_FAMILIES.find((candidate) => candidate !== family) ?? family;
        for (const id of [owner.id, unknownId(otherFamily), "%20", "prx_short"]) {
          const response = await app.inject({
            method,
            url: `${path}/${id}`,
            headers: owner.headers,
            ...(payload ? { payload } : {}),
          });
          expect(response.statusCode).toBe(400);
          expectErrorBody(response.json(), 400, "Bad Request", "invalid_request");
          expect(response.json().validation_errors).toEqual([
            expect.objectContaining({ path: "/params/id" }),
          ]);
        }
      },
    );

    test("a page_start this service did not issue, or issued for another listing, is 400", async () => {
      const { testApp, app, owner } = await sharedOwner();
      const otherFamily = RESOURCE_FAMILIES.find((candidate) => candidate !== family) ?? family;
      for (let i = 0; i < 2; i++) await seedResource(testApp, owner, otherFamily);
      const otherPage = await app.inject({
        method: "GET",
        url: `${otherFamily.path}?count=1`,
        headers: owner.headers,
      });
      const foreign = otherPage.json().pagination.next_page_start;
      expect(foreign).toEqual(expect.any(String));
      for (const cursor of ["not-a-cursor", foreign]) {
        const response = await app.inject({
          method: "GET",
          url: `${path}?page_start=${cursor}`,
          headers: owner.headers,
        });
        expect(response.statusCode).toBe(400);
        expect(response.json().message).toContain("page_start");
      }
    });
  });

  describe("404 not_found", () => {
    test.each([
      ["GET", undefined],
      ["POST", { name: "x" }],
      ["DELETE", undefined],
    ] as const)("%s of an id that never existed is 404 naming the id", async (method, payload) => {
      const { app, owner } = await sharedOwner();
      const id = unknownId(family);
      const response = await app.inject({
        method,
        url: `${path}/${id}`,
        headers: owner.headers,
        ...(payload ? { payload } : {}),
      });
      expect(response.statusCode).toBe(404);
      expect(response.headers["cache-control"]).toBe("no-store");
      expectErrorBody(response.json(), 404, "Not Found", "not_found");
      expect(response.json().message).toContain(id);
      expect(response.json().message).toContain(family.singular);
    });
  });

  describe("405 for a wrong method on a known path", () => {
    test.each([
      ["PUT", "", "GET, HEAD, POST"],
      ["DELETE", "", "GET, HEAD, POST"],
      ["PATCH", "/ID", "GET, HEAD, POST, DELETE"],
      ["PUT", "/ID", "GET, HEAD, POST, DELETE"],
    ] as const)("%s is 405 with Allow: %s, before authentication", async (method, suffix, allow) => {
      const { app } = await sharedOwner();
      const url = `${path}${suffix.replace("ID", unknownId(family))}`;
      const response = await app.inject({ method, url });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe(allow);
      expect(response.headers["cache-control"]).toBe("no-store");
      expectErrorBody(response.json(), 405, "Method Not Allowed", "method_not_allowed");
    });
  });

  describe("409 resource_quota_exceeded", () => {
    test("the 1,001st record is refused and changes nothing; a delete frees a slot", async () => {
      const { testApp, app, owner } = await sharedOwner();
      await seedMany(testApp, owner.orgId, family, 999);
      const create = () =>
        app.inject({ method: "POST", url: path, headers: owner.headers, payload: { name: "one more" } });
      const thousandth = await create();
      expect(thousandth.statusCode).toBe(200);
      const refused = await create();
      expect(refused.statusCode).toBe(409);
      expect(refused.headers["cache-control"]).toBe("no-store");
      expect(rateLimitOf(refused)?.group).toBe(family.groups.write);
      expectErrorBody(refused.json(), 409, "Conflict", "resource_quota_exceeded");
      expect(refused.json().message).toContain("1000");
      expect(refused.json().message).toContain(family.plural);
      const page = await testApp.services.resources[family.name].list({ orgId: owner.orgId }, { count: 100 });
      expect(page.data.filter((record) => record.name === "one more")).toHaveLength(1);
      // Disabling does not free a slot; deleting does.
      const id = thousandth.json().id;
      await app.inject({
        method: "POST",
        url: `${path}/${id}`,
        headers: owner.headers,
        payload: { name: "off", disabled: true },
      });
      expect((await create()).statusCode).toBe(409);
      expect(
        (await app.inject({ method: "DELETE", url: `${path}/${id}`, headers: owner.headers })).statusCode,
      ).toBe(204);
      expect((await create()).statusCode).toBe(200);
      expect((await create()).statusCode).toBe(409);
    });

    test("concurrent creates at the boundary never pass 1,000", async () => {
      const { testApp, app, owner } = await sharedOwner();
      await seedMany(testApp, owner.orgId, family, 995);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          app.inject({ method: "POST", url: path, headers: owner.headers, payload: { name: `racer ${i}` } }),
        ),
      );
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([...Array(5).fill(200), ...Array(15).fill(409)]);
      let total = 0;
      for await (const _ of allRecords(testApp, owner.orgId, family)) total++;
      expect(total).toBe(1000);
    });

    test("the quota is per family and per organization", async () => {
      const { testApp, app, owner } = await sharedOwner();
      await seedMany(testApp, owner.orgId, family, 1000);
      const otherFamily = RESOURCE_FAMILIES.find((candidate) => candidate !== family) ?? family;
      const sameOrgOtherFamily = await app.inject({
        method: "POST",
        url: otherFamily.path,
        headers: owner.headers,
        payload: { name: "x" },
      });
      expect(sameOrgOtherFamily.statusCode).toBe(200);
      const stranger = await testApp.createOrganization("stranger");
      const otherOrg = await app.inject({
        method: "POST",
        url: path,
        headers: stranger.headers,
        payload: { name: "x" },
      });
      expect(otherOrg.statusCode).toBe(200);
    });
  });

  describe("the body's shape (400, 413, 415)", () => {
    bodyShapeCases({
      createPath: path,
      updatePath: () => `${path}/${unknownId(family)}`,
      oversizedBody: { name: "big", settings: { blob: "x".repeat(200_000) } },
    });
  });

  describe("500 internal", () => {
    test("an unexpected failure is 500 with a generic message that echoes no internals", async () => {
      const testApp = await buildTestApp();
      const owner = await testApp.createOrganization();
      const { id } = await seedResource(testApp, owner, family);
      testApp.services.resources[family.name].get = async () => {
        throw new Error("SQLITE_CORRUPT: database disk image is malformed at /var/lib/latchkey/data.db");
      };
      const response = await testApp.app.inject({
        method: "GET",
        url: `${path}/${id}`,
        headers: owner.headers,
      });
      expect(response.statusCode).toBe(500);
      expect(response.headers["cache-control"]).toBe("no-store");
      expectErrorBody(response.json(), 500, "Internal Server Error", "internal");
      expect(response.body).not.toMatch(/SQLITE|malformed|\/var\/lib/);
      expect(await recordsOf(testApp, owner, family)).toHaveLength(1);
    });
  });
});

/** Every record of the family, following pages through the service. */
async function* allRecords(
  testApp: Awaited<ReturnType<typeof buildTestApp>>,
  orgId: string,
  family: ResourceFamily,
) {
  const service = testApp.services.resources[family.name];
  let pageStart: string | null = null;
  do {
    const page = await service.list(
      { orgId },
      { count: 100, ...(pageStart ? { page_start: pageStart } : {}) },
    );
    yield* page.data;
    pageStart = page.pagination.next_page_start;
  } while (pageStart);
}
