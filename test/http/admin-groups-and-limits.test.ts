import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { loadConfig } from "../../src/config.js";
import { buildApp } from "../../src/app.js";
import { adminApp } from "../helpers/admin.js";
import { basicAuth, fakeClock } from "../helpers/build-test-app.js";
import { tempDir } from "../helpers/processes.js";

/** Groups of the platform's own (LATCHKEY_GROUPS, PUT /v1/admin/groups) and organizations' overrides. */
async function groupsApp(fileGroups: unknown = { render: { policies: [{ quota: 3, window_seconds: 1 }] } }) {
  const dir = tempDir();
  const groups = join(dir, "groups.json");
  writeFileSync(groups, JSON.stringify(fileGroups));
  const routes = join(dir, "routes.json");
  writeFileSync(
    routes,
    JSON.stringify([{ method: "POST", path: "/v1/image", permission: "images:create", group: "render" }]),
  );
  const clock = fakeClock();
  const setup = await adminApp({ clock, env: { LATCHKEY_GROUPS: groups, LATCHKEY_ROUTES: routes } });
  const created = (await setup.admin("POST", "/v1/admin/organizations", { name: "acme" })).json();
  const orgId: string = created.organization.id;
  const auth = basicAuth(created.key.api_id, created.key.api_key);
  const { token } = await setup.testApp.services.serviceTokens.create("images");
  const authorize = (group: string) =>
    setup.testApp.app.inject({
      method: "POST",
      url: "/v1/authorize",
      headers: { "x-latchkey-service-token": token },
      payload: { authorization: auth.authorization, permission: "images:create", group },
    });
  const forward = () =>
    setup.testApp.app.inject({
      method: "GET",
      url: "/v1/forward-auth",
      headers: {
        ...auth,
        "x-latchkey-service-token": token,
        "x-forwarded-method": "POST",
        "x-forwarded-uri": "/v1/image",
      },
    });
  return { ...setup, clock, orgId, auth, authorize, forward, groupsFile: groups, routesFile: routes };
}

test("a LATCHKEY_GROUPS group limits authorize and forward-auth with its own window", async () => {
  const { authorize, forward, clock } = await groupsApp();
  const first = await authorize("render");
  expect(first.json()).toMatchObject({ allowed: true, headers: { "RateLimit-Policy": '"render";q=3;w=1' } });
  expect((await forward()).statusCode).toBe(200);
  expect((await authorize("render")).json().allowed).toBe(true);
  // Three admitted in the second, by authorize and forward-auth together: both refuse the fourth.
  expect((await authorize("render")).json()).toMatchObject({ allowed: false, status: 429 });
  const refused = await forward();
  expect(refused.statusCode).toBe(429);
  expect(refused.json().message).toContain("render");
  clock.advance(1000);
  expect((await authorize("render")).json().allowed).toBe(true);
});

test("PUT /v1/admin/groups declares a group every decision can name; unknown and management names are refused", async () => {
  const { admin, authorize, clock } = await groupsApp();
  expect((await authorize("thumbnails")).statusCode).toBe(400);
  const put = await admin("PUT", "/v1/admin/groups/thumbnails", {
    policies: [{ quota: 1, window_seconds: 60 }],
  });
  expect(put.statusCode).toBe(200);
  expect(put.json()).toEqual({
    name: "thumbnails",
    policies: [{ quota: 1, window_seconds: 60 }],
    per: "organization",
  });
  expect((await authorize("thumbnails")).json().allowed).toBe(true);
  expect((await authorize("thumbnails")).json()).toMatchObject({ allowed: false, status: 429 });
  // Redefined: seen within the catalog's second.
  await admin("PUT", "/v1/admin/groups/thumbnails", { policies: [{ quota: 5, window_seconds: 60 }] });
  clock.advance(1000);
  expect((await authorize("thumbnails")).json().allowed).toBe(true);

  for (const [name, body] of [
    ["api-key:read", { policies: [{ quota: 1, window_seconds: 60 }] }],
    ["Bad Name", { policies: [{ quota: 1, window_seconds: 60 }] }],
    ["t", { policies: [{ quota: 1, window_seconds: 0 }] }],
    ["t", { policies: [{ quota: 1, window_seconds: 2_678_401 }] }],
    ["t", { policies: [{ quota: 1_000_000_001, window_seconds: 1 }] }],
    ["t", { policies: [1, 2, 3, 4, 5, 6].map((w) => ({ quota: 1, window_seconds: w })) }],
    ["t", { policies: [] }],
  ] as const) {
    const response = await admin("PUT", `/v1/admin/groups/${encodeURIComponent(name)}`, body);
    expect(response.statusCode, `${name} ${JSON.stringify(body)}`).toBe(400);
    expect(response.json().validation_errors?.length ?? 1).toBeGreaterThan(0);
  }
  expect((await authorize("t")).statusCode).toBe(400);

  // Several windows and counting per key are declared as any group (stacked-limits.test.ts enforces them).
  const stacked = await admin("PUT", "/v1/admin/groups/stacked", {
    policies: [
      { quota: 10, window_seconds: 1 },
      { quota: 100, window_seconds: 60 },
    ],
  });
  expect(stacked.statusCode).toBe(200);
  const perKey = await admin("PUT", "/v1/admin/groups/perkey", {
    policies: [{ quota: 1, window_seconds: 1 }],
    per: "key",
  });
  expect(perKey.statusCode).toBe(200);
  expect((await authorize("stacked")).json()).toMatchObject({
    allowed: true,
    headers: {
      "RateLimit-Policy": '"stacked/1";q=10;w=1, "stacked/60";q=100;w=60',
      RateLimit: '"stacked/1";r=9;t=1',
    },
  });
});

test("a route table naming an undeclared group stops the start with a message naming it", async () => {
  const { routesFile } = await groupsApp();
  writeFileSync(routesFile, JSON.stringify([{ path: "/v1/x", permission: "images:read", group: "nowhere" }]));
  await expect(
    buildApp({
      config: loadConfig({ LATCHKEY_DATABASE_URL: "sqlite::memory:", LATCHKEY_ROUTES: routesFile }),
    }),
  ).rejects.toThrow(/unknown "group" "nowhere"/);
});

test("a bad LATCHKEY_GROUPS file stops the start with a message naming the file and the group", async () => {
  const dir = tempDir();
  const file = join(dir, "groups.json");
  for (const [content, message] of [
    [{ "api-key:read": { policies: [{ quota: 1, window_seconds: 1 }] } }, /management group/],
    [{ render: { policies: [{ quota: 0, window_seconds: 1 }] } }, /quota/],
    [{ render: { policies: [{ quota: 1, window_seconds: 1 }], extra: 1 } }, /extra/],
  ] as const) {
    writeFileSync(file, JSON.stringify(content));
    await expect(
      buildApp({ config: loadConfig({ LATCHKEY_DATABASE_URL: "sqlite::memory:", LATCHKEY_GROUPS: file }) }),
    ).rejects.toThrow(message);
  }
});

test("organization limits: GET shows each group and its source; PUT overrides, keeping the slots taken; DELETE restores", async () => {
  const { admin, testApp, orgId, auth } = await groupsApp();
  const url = `/v1/admin/organizations/${orgId}/limits`;
  const limits = (await admin("GET", url)).json().data;
  expect(limits["api-key:read"]).toEqual({
    policies: [{ quota: 100, window_seconds: 60 }],
    per: "organization",
    source: "default",
  });
  expect(limits.render).toEqual({
    policies: [{ quota: 3, window_seconds: 1 }],
    per: "organization",
    source: "default",
  });

  const list = () => testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: auth });
  expect((await list()).statusCode).toBe(200);
  expect((await list()).statusCode).toBe(200);
  const put = await admin("PUT", `${url}/api-key:read`, { policies: [{ quota: 3, window_seconds: 60 }] });
  expect(put.json()).toEqual({
    policies: [{ quota: 3, window_seconds: 60 }],
    per: "organization",
    source: "override",
  });
  // Two slots were already taken: one more fits.
  const third = await list();
  expect(third.statusCode).toBe(200);
  expect(third.headers["ratelimit-policy"]).toBe('"api-key:read";q=3;w=60');
  expect((await list()).statusCode).toBe(429);
  expect((await admin("GET", url)).json().data["api-key:read"].source).toBe("override");
  expect((await admin("DELETE", `${url}/api-key:read`)).statusCode).toBe(204);
  expect((await list()).statusCode).toBe(200);

  expect(
    (await admin("PUT", `${url}/unknown`, { policies: [{ quota: 3, window_seconds: 60 }] })).statusCode,
  ).toBe(400);
  expect(
    (await admin("PUT", `${url}/render`, { policies: [{ quota: 3, window_seconds: 0 }] })).statusCode,
  ).toBe(400);
  expect((await admin("GET", "/v1/admin/organizations/org_unknown/limits")).statusCode).toBe(404);
  expect((await admin("DELETE", "/v1/admin/organizations/org_unknown/limits/render")).statusCode).toBe(404);
  expect((await admin("GET", url)).json().data.render.source).toBe("default");
});
