import { describe, expect, test } from "vitest";
import { PERMISSION_CATALOGUE } from "../../src/domain/permissions.js";
import { defaultQuota } from "../../src/domain/rate-limit-groups.js";
import { sharedTestApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { rateLimitOf, seedKey } from "../helpers/http-keys.js";
import {
  RESOURCE_ROUTES,
  recordsOf,
  resourceRequest,
  seedResource,
  unknownId,
} from "../helpers/resource-routes.js";
import { UNAUTHENTICATED } from "../helpers/unauthenticated-cases.js";

/** The shared security cases (no auth, bad auth, disabled key, wrong organization, missing permission), run against every route of every family. */

interface Setup {
  testApp: TestApp;
  owner: TestKey;
  other: TestKey;
  /** A record of the owner's organization that the requests target. */
  targetId: string;
}

describe.each(RESOURCE_ROUTES)("$label ($method)", (route) => {
  // One app per route: building one was most of each test's time. Each test has organizations of its
  // own in it, so nothing one test does (records, counted slots, disabled keys) is seen by another.
  const sharedApp = sharedTestApp();

  async function setup(): Promise<Setup> {
    const testApp = sharedApp();
    const owner = await testApp.createOrganization();
    const other = await seedKey(testApp, owner, { name: "other", permissions: ["images:create"] });
    const { id } = await seedResource(testApp, owner, route.family, { name: "target" });
    return { testApp, owner, other, targetId: id };
  }

  test("succeeds for the owner key, with no-store and the family's group", async () => {
    const s = await setup();
    const response = await s.testApp.app.inject(resourceRequest(route, s.targetId, s.owner.headers));
    expect(response.statusCode).toBe(route.successStatus);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers["ratelimit-policy"]).toBe(`"${route.group}";q=${defaultQuota(route.group)};w=60`);
    expect(rateLimitOf(response)).toEqual({ group: route.group, remaining: defaultQuota(route.group) - 1 });
  });

  test.each(UNAUTHENTICATED)("is 401 with $label, says nothing of which part, changes nothing", async (c) => {
    const s = await setup();
    const { app } = s.testApp;
    const headers = await c.headers(s);
    const before = await recordsOf(s.testApp, s.owner, route.family);
    const response = await app.inject(resourceRequest(route, s.targetId, headers));
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toBe('Basic realm="latchkey", charset="UTF-8"');
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers.ratelimit).toBeUndefined();
    expect(response.headers["ratelimit-policy"]).toBeUndefined();
    const reference = await app.inject(resourceRequest(route, s.targetId, {}));
    expect(response.json()).toEqual(reference.json());
    expect(response.json()).toMatchObject({ statusCode: 401, error: "Unauthorized", code: "unauthorized" });
    expect(await recordsOf(s.testApp, s.owner, route.family)).toEqual(before);
  });

  test("is 403 missing_permission naming the permission, not counted, changes nothing", async () => {
    const s = await setup();
    const others = PERMISSION_CATALOGUE.filter((p) => p !== route.permission);
    const caller = await seedKey(s.testApp, s.owner, { permissions: others });
    const before = await recordsOf(s.testApp, s.owner, route.family);
    const response = await s.testApp.app.inject(resourceRequest(route, s.targetId, caller.headers));
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({
      statusCode: 403,
      error: "Forbidden",
      code: "missing_permission",
    });
    expect(response.json().message).toContain(route.permission);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers.ratelimit).toBeUndefined();
    expect(await recordsOf(s.testApp, s.owner, route.family)).toEqual(before);
    const next = await s.testApp.app.inject(resourceRequest(route, s.targetId, s.owner.headers));
    expect(rateLimitOf(next)?.remaining).toBe(defaultQuota(route.group) - 1);
  });

  test("holding only the route's permission is enough", async () => {
    const s = await setup();
    const caller = await seedKey(s.testApp, s.owner, { permissions: [route.permission] });
    const response = await s.testApp.app.inject(resourceRequest(route, s.targetId, caller.headers));
    expect(response.statusCode).toBe(route.successStatus);
  });

  test("does not reach into another organization", async () => {
    const s = await setup();
    const stranger = await s.testApp.createOrganization("stranger");
    const before = await recordsOf(s.testApp, s.owner, route.family);
    const response = await s.testApp.app.inject(resourceRequest(route, s.targetId, stranger.headers));
    if (route.targetsRecord) {
      // Indistinguishable from an id that never existed.
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ statusCode: 404, error: "Not Found", code: "not_found" });
      const never = unknownId(route.family);
      const unknown = await s.testApp.app.inject(resourceRequest(route, never, stranger.headers));
      expect(unknown.statusCode).toBe(404);
      expect(response.json().message.replace(s.targetId, "ID")).toBe(
        unknown.json().message.replace(never, "ID"),
      );
    } else {
      expect(response.statusCode).toBe(route.successStatus);
      const theirs = await recordsOf(s.testApp, stranger, route.family);
      expect(theirs.map((record) => record.id)).not.toContain(s.targetId);
    }
    expect(await recordsOf(s.testApp, s.owner, route.family)).toEqual(before);
  });
});
