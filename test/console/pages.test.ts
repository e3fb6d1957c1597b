import { expect, test } from "vitest";
import { buildTestApp } from "../helpers/build-test-app.js";
import { consoleUser, signIn } from "../helpers/console-session.js";

async function organizationWithPeople() {
  const testApp = await buildTestApp();
  const ownerKey = await testApp.createOrganization();
  const orgId = ownerKey.orgId;
  const people = {
    owner: await consoleUser(testApp, orgId, "owner"),
    admin: await consoleUser(testApp, orgId, "admin"),
    member: await consoleUser(testApp, orgId, "member"),
  };
  return { testApp, app: testApp.app, orgId, ownerKey, people };
}

const PAGES = ["keys", "keys/new", "usage", "limits", "audit", "members"] as const;

test("each role sees the pages its role allows: members only for owners, key changes not for members", async () => {
  const { app, orgId } = await organizationWithPeople();
  const expected = {
    owner: { keys: 200, "keys/new": 200, usage: 200, limits: 200, audit: 200, members: 200 },
    admin: { keys: 200, "keys/new": 200, usage: 200, limits: 200, audit: 200, members: 403 },
    member: { keys: 200, "keys/new": 403, usage: 200, limits: 200, audit: 200, members: 403 },
  };
  for (const role of ["owner", "admin", "member"] as const) {
    const browser = await signIn(app, `${role}@example.com`);
    const statuses = Object.fromEntries(
      await Promise.all(
        PAGES.map(async (page) => [page, (await browser.get(`/console/orgs/${orgId}/${page}`)).statusCode]),
      ),
    );
    expect(statuses, role).toEqual(expected[role]);
    const nav = (await browser.get(`/console/orgs/${orgId}/keys`)).body;
    expect(nav.includes(`/console/orgs/${orgId}/members"`), role).toBe(role === "owner");
  }
});

test("an admin creates a key whose secret is shown once, authenticates over REST, and is audited as user:<id>", async () => {
  const { app, orgId, ownerKey, people } = await organizationWithPeople();
  const admin = await signIn(app, "admin@example.com");
  const created = await admin.post(`/console/orgs/${orgId}/keys`, {
    name: "<b>billing</b>",
    description: "for the billing job",
    permissions: ["images:read", "usage:read"],
  });
  expect(created.statusCode).toBe(201);
  expect(created.headers["cache-control"]).toBe("no-store");
  const secret = /id="secret">([^<]+)</.exec(created.body)?.[1] ?? "";
  const apiId = /id="api-id">([^<]+)</.exec(created.body)?.[1] ?? "";
  expect(secret).toMatch(/^lksk_/);
  expect(created.body).toContain("&lt;b&gt;billing&lt;/b&gt;");
  expect(created.body).not.toContain("<b>billing</b>");

  const usage = await app.inject({
    url: "/v1/usage",
    headers: { authorization: `Basic ${Buffer.from(`${apiId}:${secret}`).toString("base64")}` },
  });
  expect(usage.statusCode).toBe(200);

  const list = await admin.get(`/console/orgs/${orgId}/keys`);
  const keyId = /keys\/(key_[0-9A-Za-z]+)"/.exec(list.body)?.[1] ?? "";
  const detail = await admin.get(`/console/orgs/${orgId}/keys/${keyId}`);
  for (const page of [list.body, detail.body]) expect(page).not.toContain(secret);

  const audit = await app.inject({ url: "/v1/audit", headers: ownerKey.headers });
  const entry = (audit.json().data as { action: string; actor: string }[]).find(
    (e) => e.action === "api_key.create" && e.actor !== "operator",
  );
  expect(entry?.actor).toBe(`user:${people.admin.id}`);
});

test("edit replaces the configuration, disable refuses the key at once, and both are audited", async () => {
  const { app, orgId, ownerKey, people } = await organizationWithPeople();
  const owner = await signIn(app, "owner@example.com");
  const created = await owner.post(`/console/orgs/${orgId}/keys`, { name: "ci", permissions: "images:read" });
  const secret = /id="secret">([^<]+)</.exec(created.body)?.[1] ?? "";
  const apiId = /id="api-id">([^<]+)</.exec(created.body)?.[1] ?? "";
  const keyId = /keys\/(key_[0-9A-Za-z]+)"/.exec(created.body)?.[1] ?? "";
  const edited = await owner.post(`/console/orgs/${orgId}/keys/${keyId}`, {
    name: "ci renamed",
    permissions: ["usage:read"],
  });
  expect(edited.statusCode).toBe(303);
  const record = await app.inject({ url: `/v1/api-keys/${keyId}`, headers: ownerKey.headers });
  expect(record.json()).toMatchObject({ name: "ci renamed", permissions: ["usage:read"], enabled: true });

  expect((await owner.post(`/console/orgs/${orgId}/keys/${keyId}/disable`, {})).statusCode).toBe(303);
  const refused = await app.inject({
    url: "/v1/usage",
    headers: { authorization: `Basic ${Buffer.from(`${apiId}:${secret}`).toString("base64")}` },
  });
  expect(refused.statusCode).toBe(401);
  const filtered = await owner.get(
    `/console/orgs/${orgId}/audit?actor=${encodeURIComponent(`user:${people.owner.id}`)}&target=${keyId}`,
  );
  expect(filtered.body).toContain("api_key.disable");
  expect(filtered.body).toContain("api_key.update");
  expect(filtered.body).not.toContain("organization.create");
});

test("a member cannot create, edit or disable keys; an admin cannot change members", async () => {
  const { app, orgId, ownerKey, people } = await organizationWithPeople();
  const member = await signIn(app, "member@example.com");
  expect(
    (await member.post(`/console/orgs/${orgId}/keys`, { name: "x", permissions: "images:read" })).statusCode,
  ).toBe(403);
  expect((await member.post(`/console/orgs/${orgId}/keys/${ownerKey.id}/disable`, {})).statusCode).toBe(403);
  expect((await member.post(`/console/orgs/${orgId}/keys/${ownerKey.id}`, { name: "x" })).statusCode).toBe(
    403,
  );
  const admin = await signIn(app, "admin@example.com");
  expect(
    (await admin.post(`/console/orgs/${orgId}/members/${people.member.id}`, { role: "owner" })).statusCode,
  ).toBe(403);
  expect((await admin.post(`/console/orgs/${orgId}/members/${people.owner.id}/remove`, {})).statusCode).toBe(
    403,
  );
  const keys = await app.inject({ url: "/v1/api-keys?include_disabled=true", headers: ownerKey.headers });
  expect(keys.json().data).toHaveLength(1);
  expect(keys.json().data[0].enabled).toBe(true);
});

test("owners change roles and members, never removing the last owner", async () => {
  const { app, orgId, people } = await organizationWithPeople();
  const owner = await signIn(app, "owner@example.com");
  expect(
    (await owner.post(`/console/orgs/${orgId}/members/${people.member.id}`, { role: "admin" })).statusCode,
  ).toBe(303);
  const lastOwner = await owner.post(`/console/orgs/${orgId}/members/${people.owner.id}/remove`, {});
  expect(lastOwner.statusCode).toBe(400);
  expect(lastOwner.body).toContain("without an owner");
  const added = await owner.post(`/console/orgs/${orgId}/members`, {
    email: "new@example.com",
    role: "member",
    password: "another long password",
  });
  expect(added.statusCode).toBe(303);
  const page = await owner.get(`/console/orgs/${orgId}/members`);
  expect(page.body).toContain("new@example.com");
  await signIn(app, "new@example.com", "another long password");
});

test("another organization's pages are 404, and its keys cannot be touched", async () => {
  const { testApp, app, orgId } = await organizationWithPeople();
  const other = await testApp.createOrganization("other");
  const owner = await signIn(app, "owner@example.com");
  expect((await owner.get(`/console/orgs/${other.orgId}/keys`)).statusCode).toBe(404);
  expect((await owner.post(`/console/orgs/${other.orgId}/keys/${other.id}/disable`, {})).statusCode).toBe(
    404,
  );
  expect((await owner.post(`/console/orgs/${orgId}/keys/${other.id}/disable`, {})).statusCode).toBe(404);
});

test("console actions have their own allowance per user, apart from the organization's management groups", async () => {
  const { app, orgId, ownerKey } = await organizationWithPeople();
  const admin = await signIn(app, "admin@example.com");
  for (let i = 0; i < 3; i++) {
    expect(
      (await admin.post(`/console/orgs/${orgId}/keys`, { name: `k${i}`, permissions: "images:read" }))
        .statusCode,
    ).toBe(201);
  }
  const rest = await app.inject({
    method: "POST",
    url: "/v1/api-keys",
    headers: { ...ownerKey.headers, "content-type": "application/json" },
    payload: { name: "rest", permissions: ["images:read"] },
  });
  expect(rest.headers.ratelimit).toBe('"api-key:write";r=19;t=60');
  const limits = await admin.get(`/console/orgs/${orgId}/limits`);
  expect(limits.body).toMatch(/<code>api-key:write<\/code><\/th>\s*<td>20<\/td>\s*<td>19<\/td>/);

  // 600 a minute per user: the sign-in landing and the requests above already took some.
  const statuses: number[] = [];
  for (let i = 0; i < 600; i++) statuses.push((await admin.get("/console/switch?org=none")).statusCode);
  expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
  const other = await signIn(app, "member@example.com");
  expect((await other.get(`/console/orgs/${orgId}/keys`)).statusCode).toBe(200);
});
