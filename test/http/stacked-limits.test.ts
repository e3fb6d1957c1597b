import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { adminApp } from "../helpers/admin.js";
import { basicAuth, fakeClock } from "../helpers/build-test-app.js";
import { tempDir } from "../helpers/processes.js";

/**
 * Stacked windows, counting per key and cost (docs/rate-limits.md) on the embedded default (SQLite and
 * the in-memory limiter), through authorize and forward-auth, with a fake clock.
 */
async function limitsApp() {
  const dir = tempDir();
  const routes = join(dir, "routes.json");
  writeFileSync(
    routes,
    JSON.stringify([
      { method: "POST", path: "/v1/batch", permission: "images:create", group: "render", cost: 4 },
      { method: "POST", path: "/v1/image", permission: "images:create", group: "render" },
    ]),
  );
  const groups = join(dir, "groups.json");
  writeFileSync(
    groups,
    JSON.stringify({
      render: {
        policies: [
          { quota: 3, window_seconds: 1 },
          { quota: 5, window_seconds: 10 },
        ],
      },
    }),
  );
  const clock = fakeClock();
  const setup = await adminApp({ clock, env: { LATCHKEY_GROUPS: groups, LATCHKEY_ROUTES: routes } });
  const created = (await setup.admin("POST", "/v1/admin/organizations", { name: "acme" })).json();
  const orgId: string = created.organization.id;
  const owner = basicAuth(created.key.api_id, created.key.api_key);
  const { token } = await setup.testApp.services.serviceTokens.create("images");
  const { app } = setup.testApp;
  const authorize = (body: Record<string, unknown>, auth = owner) =>
    app.inject({
      method: "POST",
      url: "/v1/authorize",
      headers: { "x-latchkey-service-token": token },
      payload: { authorization: auth.authorization, permission: "images:create", ...body },
    });
  const forward = (uri: string, auth = owner) =>
    app.inject({
      method: "GET",
      url: "/v1/forward-auth",
      headers: {
        ...auth,
        "x-latchkey-service-token": token,
        "x-forwarded-method": "POST",
        "x-forwarded-uri": uri,
      },
    });
  const newKey = async (body: Record<string, unknown> = {}) => {
    const response = await app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: owner,
      payload: { permissions: ["images:create"], ...body },
    });
    return response;
  };
  return { ...setup, clock, orgId, owner, authorize, forward, newKey };
}

test("a stacked group admits only what fits every window; a refusal takes no slot in any", async () => {
  const { authorize, clock } = await limitsApp();
  const allowed: boolean[] = [];
  for (let i = 0; i < 4; i++) allowed.push((await authorize({ group: "render" })).json().allowed);
  // The 1-second window holds 3: the fourth is refused, and the 10-second window still holds 3.
  expect(allowed).toEqual([true, true, true, false]);
  const refused = await authorize({ group: "render" });
  expect(refused.json()).toMatchObject({
    allowed: false,
    status: 429,
    headers: {
      "RateLimit-Policy": '"render/1";q=3;w=1, "render/10";q=5;w=10',
      RateLimit: '"render/1";r=0;t=1',
      "Retry-After": "1",
    },
  });
  expect(refused.json().error.message).toContain("allows 3 requests per 1 seconds per organization");
  clock.advance(1000);
  // Refusals took nothing from the 10-second window: two more fit there, then it refuses.
  expect((await authorize({ group: "render" })).json()).toMatchObject({
    allowed: true,
    headers: { RateLimit: '"render/10";r=1;t=9' },
  });
  expect((await authorize({ group: "render" })).json().allowed).toBe(true);
  const full = await authorize({ group: "render" });
  // The 1-second window has room, the 10-second one has none until its oldest slot leaves (t=0+10 s).
  expect(full.json()).toMatchObject({
    allowed: false,
    headers: { "Retry-After": "9", RateLimit: '"render/10";r=0;t=9' },
  });
  clock.advance(8999);
  expect((await authorize({ group: "render" })).json().allowed).toBe(false);
  clock.advance(1);
  expect((await authorize({ group: "render" })).json().allowed).toBe(true);
});

test("Retry-After is when every window can hold the request, not when the first one can", async () => {
  const { authorize, clock } = await limitsApp();
  for (let i = 0; i < 3; i++) await authorize({ group: "render" });
  clock.advance(1000);
  for (let i = 0; i < 2; i++) await authorize({ group: "render" });
  clock.advance(500);
  // Both windows are full now: the 1-second one frees at 2.0 s, the 10-second one at 10 s.
  const refused = await authorize({ group: "render" });
  expect(refused.json().headers["Retry-After"]).toBe("9");
});

test("cost takes that many slots in every window at once, or none when any window cannot hold them", async () => {
  const { authorize, forward, clock } = await limitsApp();
  // Cost 4 never fits a window of 3: refused, and nothing is taken.
  expect((await forward("/v1/batch")).statusCode).toBe(429);
  expect((await authorize({ group: "render", cost: 3 })).json()).toMatchObject({
    allowed: true,
    headers: { RateLimit: '"render/1";r=0;t=1' },
  });
  expect((await authorize({ group: "render", cost: 1 })).json().allowed).toBe(false);
  clock.advance(1000);
  // 3 of 5 held in the 10-second window: a cost of 3 does not fit, a cost of 2 does.
  expect((await authorize({ group: "render", cost: 3 })).json().allowed).toBe(false);
  expect((await authorize({ group: "render", cost: 2 })).json().allowed).toBe(true);
  expect((await forward("/v1/image")).statusCode).toBe(429);
});

test("concurrent requests never exceed any window: exactly the smallest allowance is admitted", async () => {
  const { authorize } = await limitsApp();
  const answers = await Promise.all(
    Array.from({ length: 40 }, () => authorize({ group: "render", cost: 1 })),
  );
  expect(answers.filter((r) => r.json().allowed)).toHaveLength(3);
  expect(answers.every((r) => r.statusCode === 200)).toBe(true);
});

test("a group counted per key gives each key its own windows, and a key's own rate_limits stay within the organization's", async () => {
  const { admin, authorize, newKey, clock } = await limitsApp();
  expect(
    (
      await admin("PUT", "/v1/admin/groups/thumbs", {
        policies: [
          { quota: 4, window_seconds: 1 },
          { quota: 100, window_seconds: 3600 },
        ],
        per: "key",
      })
    ).statusCode,
  ).toBe(200);
  clock.advance(1000);
  const plain = await newKey();
  const limited = await newKey({
    rate_limits: {
      thumbs: {
        policies: [
          { quota: 2, window_seconds: 1 },
          { quota: 50, window_seconds: 3600 },
        ],
      },
    },
  });
  expect(limited.statusCode).toBe(200);
  expect(limited.json().rate_limits).toEqual({
    thumbs: {
      policies: [
        { quota: 2, window_seconds: 1 },
        { quota: 50, window_seconds: 3600 },
      ],
    },
  });
  expect(plain.json()).not.toHaveProperty("rate_limits");
  const auth = (key: { api_id: string; api_key: string }) => basicAuth(key.api_id, key.api_key);
  const count = async (key: { api_id: string; api_key: string }, n: number) => {
    const results = await Promise.all(
      Array.from({ length: n }, () => authorize({ group: "thumbs" }, auth(key))),
    );
    return results.filter((r) => r.json().allowed).length;
  };
  expect(await count(plain.json(), 10)).toBe(4);
  expect(await count(limited.json(), 10)).toBe(2);
  const refused = await authorize({ group: "thumbs" }, auth(limited.json()));
  expect(refused.json().error.message).toContain("per key");
  expect(refused.json().headers["RateLimit-Policy"]).toBe('"thumbs/1";q=2;w=1, "thumbs/3600";q=50;w=3600');
});

test("a key's rate_limits above the organization's policy, for an unknown group or a group counted per organization are 400, nothing changed", async () => {
  const { admin, newKey, owner, testApp, clock } = await limitsApp();
  await admin("PUT", "/v1/admin/groups/thumbs", {
    policies: [
      { quota: 4, window_seconds: 1 },
      { quota: 100, window_seconds: 3600 },
    ],
    per: "key",
  });
  clock.advance(1000);
  for (const [rateLimits, path] of [
    [{ thumbs: { policies: [{ quota: 5, window_seconds: 1 }] } }, "/rate_limits/thumbs/policies"],
    // Within the 1-second window, but 2 a second is 7,200 an hour, above the organization's 100.
    [{ thumbs: { policies: [{ quota: 2, window_seconds: 1 }] } }, "/rate_limits/thumbs/policies"],
    // Two windows of one length.
    [
      {
        thumbs: {
          policies: [
            { quota: 3, window_seconds: 1 },
            { quota: 1, window_seconds: 2 },
            { quota: 4, window_seconds: 1 },
          ],
        },
      },
      "/rate_limits/thumbs/policies",
    ],
    [{ nowhere: { policies: [{ quota: 1, window_seconds: 1 }] } }, "/rate_limits/nowhere"],
    [{ render: { policies: [{ quota: 1, window_seconds: 1 }] } }, "/rate_limits/render"],
  ] as const) {
    const response = await newKey({ rate_limits: rateLimits });
    expect(response.statusCode, JSON.stringify(rateLimits)).toBe(400);
    expect(response.json().validation_errors[0].path).toBe(path);
  }
  for (const body of [
    { thumbs: { policies: [{ quota: 1, window_seconds: 0 }] } },
    { thumbs: { policies: [1, 2, 3, 4, 5, 6].map((w) => ({ quota: 1, window_seconds: w })) } },
    { thumbs: { policies: [{ quota: 1_000_000_001, window_seconds: 1 }] } },
  ]) {
    expect((await newKey({ rate_limits: body })).statusCode).toBe(400);
  }
  const keys = await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: owner });
  expect(keys.json().data).toHaveLength(1);
});

test("an update keeps rate_limits when it omits them, and null clears them", async () => {
  const { admin, newKey, owner, testApp, clock } = await limitsApp();
  await admin("PUT", "/v1/admin/groups/thumbs", { policies: [{ quota: 4, window_seconds: 1 }], per: "key" });
  clock.advance(1000);
  const key = (
    await newKey({ rate_limits: { thumbs: { policies: [{ quota: 1, window_seconds: 1 }] } } })
  ).json();
  const update = (body: Record<string, unknown>) =>
    testApp.app.inject({
      method: "POST",
      url: `/v1/api-keys/${key.id}`,
      headers: owner,
      payload: { permissions: ["images:create"], ...body },
    });
  expect((await update({ name: "renamed" })).json().rate_limits).toEqual({
    thumbs: { policies: [{ quota: 1, window_seconds: 1 }] },
  });
  expect((await update({ rate_limits: null })).json()).not.toHaveProperty("rate_limits");
});

test("changing a group's policy keeps the slots already taken in each window", async () => {
  const { admin, authorize, orgId, clock } = await limitsApp();
  for (let i = 0; i < 3; i++) await authorize({ group: "render" });
  // The organization's override raises the 1-second window and keeps the 10-second one.
  const put = await admin("PUT", `/v1/admin/organizations/${orgId}/limits/render`, {
    policies: [
      { quota: 4, window_seconds: 1 },
      { quota: 5, window_seconds: 10 },
    ],
  });
  expect(put.statusCode).toBe(200);
  clock.advance(1);
  // The three slots taken before the change still count: one more fits the 1-second window.
  expect((await authorize({ group: "render" })).json()).toMatchObject({
    allowed: true,
    headers: { RateLimit: '"render/1";r=0;t=1' },
  });
  expect((await authorize({ group: "render" })).json().allowed).toBe(false);
});

test("bad input on authorize and overrides: 400 with validation_errors, nothing counted or changed", async () => {
  const { admin, authorize, orgId } = await limitsApp();
  for (const body of [
    { group: "render", cost: 1001 },
    { group: "render", cost: 0 },
    { cost: 2 },
    { group: "nowhere" },
  ]) {
    const response = await authorize(body);
    expect(response.statusCode, JSON.stringify(body)).toBe(400);
    expect(response.json().validation_errors.length).toBeGreaterThan(0);
  }
  for (const body of [
    { policies: [{ quota: 1, window_seconds: 2_678_401 }] },
    { policies: [1, 2, 3, 4, 5, 6].map((w) => ({ quota: 1, window_seconds: w })) },
    { policies: [{ quota: 1_000_000_001, window_seconds: 1 }] },
  ]) {
    const response = await admin("PUT", `/v1/admin/organizations/${orgId}/limits/render`, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().validation_errors.length).toBeGreaterThan(0);
  }
  const unknown = await admin("PUT", `/v1/admin/organizations/${orgId}/limits/nowhere`, {
    policies: [{ quota: 1, window_seconds: 1 }],
  });
  expect(unknown.statusCode).toBe(400);
  expect(unknown.json().validation_errors.length).toBeGreaterThan(0);
  expect((await admin("GET", `/v1/admin/organizations/${orgId}/limits`)).json().data.render.source).toBe(
    "default",
  );
  // Nothing was counted by the refusals: the whole 1-second allowance is there.
  for (let i = 0; i < 3; i++) expect((await authorize({ group: "render" })).json().allowed).toBe(true);
});

test("only a caller with authority over a key can set its rate_limits", async () => {
  const { admin, newKey, testApp, clock } = await limitsApp();
  await admin("PUT", "/v1/admin/groups/thumbs", { policies: [{ quota: 4, window_seconds: 1 }], per: "key" });
  clock.advance(1000);
  const target = (await newKey()).json();
  // A key manager that does not hold images:create has no authority over the target.
  const manager = (await newKey({ permissions: ["api_keys:read", "api_keys:create_update"] })).json();
  const response = await testApp.app.inject({
    method: "POST",
    url: `/v1/api-keys/${target.id}`,
    headers: basicAuth(manager.api_id, manager.api_key),
    payload: {
      permissions: ["images:create"],
      rate_limits: { thumbs: { policies: [{ quota: 1, window_seconds: 1 }] } },
    },
  });
  expect(response.statusCode).toBe(403);
  expect(response.json().code).toBe("insufficient_authority");
  const read = await testApp.app.inject({
    method: "GET",
    url: `/v1/api-keys/${target.id}`,
    headers: basicAuth(manager.api_id, manager.api_key),
  });
  expect(read.json()).not.toHaveProperty("rate_limits");
});

test("a key's own limits above a policy lowered since give way to the organization's", async () => {
  const { admin, authorize, newKey, orgId, clock } = await limitsApp();
  await admin("PUT", "/v1/admin/groups/thumbs", { policies: [{ quota: 4, window_seconds: 1 }], per: "key" });
  clock.advance(1000);
  const key = (
    await newKey({ rate_limits: { thumbs: { policies: [{ quota: 3, window_seconds: 1 }] } } })
  ).json();
  const put = await admin("PUT", `/v1/admin/organizations/${orgId}/limits/thumbs`, {
    policies: [{ quota: 1, window_seconds: 1 }],
    per: "key",
  });
  expect(put.statusCode).toBe(200);
  const auth = basicAuth(key.api_id, key.api_key);
  expect((await authorize({ group: "thumbs" }, auth)).json().allowed).toBe(true);
  const refused = await authorize({ group: "thumbs" }, auth);
  expect(refused.json()).toMatchObject({
    allowed: false,
    headers: { "RateLimit-Policy": '"thumbs";q=1;w=1' },
  });
});
