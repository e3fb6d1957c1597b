import { describe, expect, test } from "vitest";
import { PERMISSION_CATALOGUE } from "../../src/domain/permissions.js";
import { buildTestApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { listAll, rateLimitOf, seedKey, withoutLastUse } from "../helpers/http-keys.js";
import { KEY_ROUTES, routeRequest } from "../helpers/key-routes.js";
import { UNAUTHENTICATED } from "../helpers/unauthenticated-cases.js";

/** The shared security cases, run against every key route (no auth, bad auth, disabled key, wrong organization, missing permission). */

interface Setup {
  testApp: TestApp;
  owner: TestKey;
  /** A key of the owner's organization that the requests target. */
  target: TestKey;
}

async function setup(): Promise<Setup> {
  const testApp = await buildTestApp();
  const owner = await testApp.createOrganization();
  const target = await seedKey(testApp, owner, { name: "target", permissions: ["images:create"] });
  return { testApp, owner, target };
}

describe.each(KEY_ROUTES)("$label ($method)", (route) => {
  test("succeeds for the owner key (the control for the cases below)", async () => {
    const { testApp, owner, target } = await setup();
    const response = await testApp.app.inject(routeRequest(route, target.id, owner.headers));
    expect(response.statusCode).toBe(route.successStatus);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(rateLimitOf(response)?.group).toBe(route.group);
  });

  test.each(UNAUTHENTICATED)("is 401 with $label, says nothing of which part, changes nothing", async (c) => {
    const s = await setup();
    const { app } = s.testApp;
    const headers = await c.headers({ ...s, other: s.target });
    const before = await listAll(s.testApp, s.owner);
    const response = await app.inject(routeRequest(route, s.target.id, headers));
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toBe('Basic realm="latchkey", charset="UTF-8"');
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers.ratelimit).toBeUndefined();
    expect(response.headers["ratelimit-policy"]).toBeUndefined();
    const reference = await app.inject(routeRequest(route, s.target.id, {}));
    expect(response.json()).toEqual(reference.json());
    expect(response.json()).toMatchObject({ statusCode: 401, error: "Unauthorized", code: "unauthorized" });
    expect(response.body).not.toMatch(/secret is wrong|unknown api_id|disabled|malformed|base64/i);
    expect(await listAll(s.testApp, s.owner)).toEqual(before);
  });

  test("is 403 missing_permission naming the permission, not counted, changes nothing", async () => {
    const s = await setup();
    const others = PERMISSION_CATALOGUE.filter((p) => p !== route.permission);
    const caller = await seedKey(s.testApp, s.owner, { permissions: others });
    const before = (await listAll(s.testApp, s.owner)).map(withoutLastUse);
    const response = await s.testApp.app.inject(routeRequest(route, s.target.id, caller.headers));
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({
      statusCode: 403,
      error: "Forbidden",
      code: "missing_permission",
    });
    expect(response.json().message).toContain(route.permission);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers.ratelimit).toBeUndefined();
    expect((await listAll(s.testApp, s.owner)).map(withoutLastUse)).toEqual(before);
    // Only the owner's two list calls (read group) were counted before this one.
    const next = await s.testApp.app.inject(routeRequest(route, s.target.id, s.owner.headers));
    const quota = route.group === "api-key:read" ? 100 : 20;
    const alreadyCounted = route.group === "api-key:read" ? 2 : 0;
    expect(rateLimitOf(next)?.remaining).toBe(quota - alreadyCounted - 1);
  });

  test("does not reach into another organization", async () => {
    const s = await setup();
    const stranger = await s.testApp.createOrganization("stranger");
    const before = await listAll(s.testApp, s.owner);
    const response = await s.testApp.app.inject(routeRequest(route, s.target.id, stranger.headers));
    if (route.targetsKey) {
      // Indistinguishable from an id that never existed.
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ statusCode: 404, error: "Not Found", code: "not_found" });
      const unknown = await s.testApp.app.inject(
        routeRequest(route, "key_0000000000000000000000", stranger.headers),
      );
      expect(response.json().message.replace(s.target.id, "ID")).toBe(
        unknown.json().message.replace("key_0000000000000000000000", "ID"),
      );
    } else {
      expect(response.statusCode).toBe(route.successStatus);
      const theirs = await listAll(s.testApp, stranger);
      expect(theirs.map((key) => key.id)).not.toContain(s.target.id);
      expect(theirs.map((key) => key.id)).not.toContain(s.owner.id);
    }
    expect(await listAll(s.testApp, s.owner)).toEqual(before);
  });
});
