import { expect, test } from "vitest";
import { basicAuth, buildTestApp, type FakeClock, fakeClock } from "../helpers/build-test-app.js";
import { type ConsoleBrowser, consoleUser, signIn } from "../helpers/console-session.js";

async function organizationWithPeople(clock?: FakeClock) {
  const testApp = await buildTestApp({ clock });
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
  const posted = await admin.post(`/console/orgs/${orgId}/keys`, {
    name: "<b>billing</b>",
    description: "for the billing job",
    permissions: ["images:read", "usage:read"],
  });
  // POST-redirect-GET: the answer to the form is a redirect, so a reload cannot send it again.
  expect(posted.statusCode).toBe(303);
  expect(posted.body).not.toMatch(/lksk_/);
  const created = await admin.follow(posted);
  expect(created.statusCode).toBe(200);
  expect(created.headers["cache-control"]).toBe("no-store");
  const secret = /id="secret">([^<]+)</.exec(created.body)?.[1] ?? "";
  const apiId = /id="api-id">([^<]+)</.exec(created.body)?.[1] ?? "";
  expect(secret).toMatch(/^lksk_/);
  expect(created.body).toContain("&lt;b&gt;billing&lt;/b&gt;");
  expect(created.body).not.toContain("<b>billing</b>");
  // The same page again (a reload, the back button): the secret was shown once and is not shown again.
  const again = await admin.follow(posted);
  expect(again.statusCode).toBe(200);
  expect(again.body).not.toContain(secret);
  expect(again.body).toContain("Its secret was shown once");
  // Nor to another session that has the address.
  const other = await signIn(app, "owner@example.com");
  expect((await other.get(String(posted.headers.location))).body).not.toContain(secret);

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
  const created = await owner.follow(
    await owner.post(`/console/orgs/${orgId}/keys`, { name: "ci", permissions: "images:read" }),
  );
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
  const roll = await member.post(`/console/orgs/${orgId}/keys/${ownerKey.id}/roll`, { overlap_seconds: "0" });
  expect(roll.statusCode).toBe(403);
  expect(roll.body).toContain("can read keys but not change them");
  expect(roll.body).not.toMatch(/lksk_/);
  expect((await member.get(`/console/orgs/${orgId}/keys/${ownerKey.id}`)).body).not.toContain("/roll");
  // The owner key's secret still works: nothing was rolled.
  expect((await app.inject({ url: "/v1/usage", headers: ownerKey.headers })).statusCode).toBe(200);
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
    ).toBe(303);
  }
  const rest = await app.inject({
    method: "POST",
    url: "/v1/api-keys",
    headers: { ...ownerKey.headers, "content-type": "application/json" },
    payload: { name: "rest", permissions: ["images:read"] },
  });
  expect(rest.headers.ratelimit).toBe('"api-key:write";r=19;t=60');
  const limits = await admin.get(`/console/orgs/${orgId}/limits`);
  // The quota, then what is left (with its gauge); each cell names its column for the phone layout.
  expect(limits.body).toMatch(
    /<code>api-key:write<\/code><\/th>\s*<td data-label="Quota">20<\/td>\s*<td data-label="Left now">\s*19\s*<meter/,
  );

  // 600 a minute per user: the sign-in landing and the requests above already took some.
  const statuses: number[] = [];
  for (let i = 0; i < 600; i++) statuses.push((await admin.get("/console/switch?org=none")).statusCode);
  expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
  const other = await signIn(app, "member@example.com");
  expect((await other.get(`/console/orgs/${orgId}/keys`)).statusCode).toBe(200);
});

/** A key made through the console's create form; its id, API id and secret from the response. */
async function createWithForm(browser: ConsoleBrowser, orgId: string, fields: Record<string, string>) {
  const created = await browser.follow(
    await browser.post(`/console/orgs/${orgId}/keys`, { permissions: "usage:read", ...fields }),
  );
  expect(created.statusCode, created.body).toBe(200);
  return {
    id: /keys\/(key_[0-9A-Za-z]+)"/.exec(created.body)?.[1] ?? "",
    apiId: /id="api-id">([^<]+)</.exec(created.body)?.[1] ?? "",
    secret: /id="secret">([^<]+)</.exec(created.body)?.[1] ?? "",
  };
}

/** The key list's rows as name and status, as a reader sees the table. */
function rows(body: string): { name: string; status: string }[] {
  const text = (cell: string) =>
    cell
      .replace(/<[^>]*>/g, "")
      .replace(/\s+/g, " ")
      .trim();
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map((row) =>
      [...(row[1] ?? "").matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => text(cell[1] ?? "")),
    )
    .filter((cells) => cells.length > 0)
    .map((cells) => ({ name: cells[0] ?? "", status: cells[3] ?? "" }));
}

test("create and edit set expiry, allowed networks and metadata; an expiry only comes forward, a refusal is shown beside the form", async () => {
  const { app, orgId, ownerKey } = await organizationWithPeople(fakeClock());
  const owner = await signIn(app, "owner@example.com");
  const form = (await owner.get(`/console/orgs/${orgId}/keys/new`)).body;
  for (const id of ["expires_at", "allowed_cidrs", "metadata"]) {
    expect(form).toContain(`<label for="${id}">`);
    expect(form).toContain(`id="${id}"`);
  }
  const key = await createWithForm(owner, orgId, {
    name: "contractor",
    expires_at: "2026-12-01T10:00",
    allowed_cidrs: "203.0.113.0/24\r\n\r\n2001:db8::/32\r\n",
    metadata: "team=billing\nenv = prod",
  });
  const record = async () =>
    (await app.inject({ url: `/v1/api-keys/${key.id}`, headers: ownerKey.headers })).json();
  expect(await record()).toMatchObject({
    expires_at: "2026-12-01T10:00:00.000Z",
    allowed_cidrs: ["203.0.113.0/24", "2001:db8::/32"],
    metadata: { team: "billing", env: "prod" },
  });
  const page = (await owner.get(`/console/orgs/${orgId}/keys/${key.id}`)).body;
  expect(page).toContain('value="2026-12-01T10:00"');
  expect(page).toContain("2026-12-01 10:00 UTC");

  // Later: refused, shown with role=alert beside the form with what was typed; nothing changes.
  const later = await owner.post(`/console/orgs/${orgId}/keys/${key.id}`, {
    name: "renamed",
    permissions: "usage:read",
    expires_at: "2026-12-05T10:00",
    allowed_cidrs: "203.0.113.0/24",
    metadata: "team=billing",
  });
  expect(later.statusCode).toBe(400);
  expect(later.body).toMatch(/role="alert">[^<]*can only be brought forward/);
  expect(later.body).toContain('value="2026-12-05T10:00"');
  expect(later.body).toContain('value="renamed"');
  expect(await record()).toMatchObject({ name: "contractor", expires_at: "2026-12-01T10:00:00.000Z" });

  // The expiry the form was shown with keeps it; an empty networks box allows any address again.
  const kept = await owner.post(`/console/orgs/${orgId}/keys/${key.id}`, {
    name: "renamed",
    permissions: "usage:read",
    expires_at: "2026-12-01T10:00",
    allowed_cidrs: "",
    metadata: "team=shop",
  });
  expect(kept.statusCode).toBe(303);
  expect(await record()).toMatchObject({
    name: "renamed",
    expires_at: "2026-12-01T10:00:00.000Z",
    allowed_cidrs: null,
    metadata: { team: "shop" },
  });
  const sooner = await owner.post(`/console/orgs/${orgId}/keys/${key.id}`, {
    name: "renamed",
    permissions: "usage:read",
    expires_at: "2026-11-25T08:30",
  });
  expect(sooner.statusCode).toBe(303);
  expect(await record()).toMatchObject({ expires_at: "2026-11-25T08:30:00.000Z", metadata: null });

  const before = (await app.inject({ url: "/v1/api-keys", headers: ownerKey.headers })).json().data.length;
  for (const [fields, problem] of [
    [{ allowed_cidrs: "203.0.113.0/33" }, "/allowed_cidrs"],
    [{ metadata: "no equals sign" }, "not of the form name=value"],
    [{ expires_at: "2026-11-21T10:00" }, "must be in the future"],
  ] as const) {
    const refused = await owner.post(`/console/orgs/${orgId}/keys`, { name: "bad", ...fields });
    expect(refused.statusCode, problem).toBe(400);
    expect(refused.body).toMatch(new RegExp(`role="alert">[^<]*${problem.replace("/", "\\/")}`));
  }
  const after = (await app.inject({ url: "/v1/api-keys", headers: ownerKey.headers })).json().data.length;
  expect(after).toBe(before);
});

test("the list marks expired and leaked keys and filters by name prefix and one metadata member", async () => {
  const clock = fakeClock();
  const { testApp, app, orgId } = await organizationWithPeople(clock);
  const admin = await signIn(app, "admin@example.com");
  const billing = await createWithForm(admin, orgId, { name: "billing-a", metadata: "team=billing" });
  await createWithForm(admin, orgId, { name: "billing-b", metadata: "team=shop" });
  await createWithForm(admin, orgId, {
    name: "render",
    metadata: "team=billing",
    expires_at: "2026-11-22T11:00",
  });
  // A secret scanner's report marks the key (with LATCHKEY_LEAKED_KEYS=flag it stays enabled).
  await testApp.services.store.changeKey(orgId, billing.id, (key) => ({ ...key, leakedAt: clock.now() }));
  clock.advance(2 * 3_600_000);

  const list = async (query: string) => {
    const response = await admin.get(`/console/orgs/${orgId}/keys${query}`);
    expect(response.statusCode, query).toBe(200);
    return rows(response.body);
  };
  expect(await list("")).toEqual(
    expect.arrayContaining([
      { name: "render", status: "enabled, expired" },
      { name: "billing-a", status: "enabled, leaked" },
      { name: "billing-b", status: "enabled" },
    ]),
  );
  const names = async (query: string) => (await list(query)).map((row) => row.name).sort();
  expect(await names("?name_prefix=billing")).toEqual(["billing-a", "billing-b"]);
  expect(await names("?metadata=team%3Dbilling")).toEqual(["billing-a", "render"]);
  expect(await names("?name_prefix=billing&metadata=team%3Dbilling")).toEqual(["billing-a"]);
  expect(await names("?name_prefix=Billing")).toEqual([]);

  const refused = await admin.get(`/console/orgs/${orgId}/keys?metadata=team`);
  expect(refused.statusCode).toBe(400);
  expect(refused.body).toMatch(/role="alert">[^<]*not of the form name=value/);
});

test("roll shows the new secret once and when the previous one ends; both work for the overlap; audited as user:<id>", async () => {
  const clock = fakeClock();
  const { app, orgId, ownerKey, people } = await organizationWithPeople(clock);
  const admin = await signIn(app, "admin@example.com");
  const key = await createWithForm(admin, orgId, { name: "render" });
  const works = async (secret: string) =>
    (await app.inject({ url: "/v1/usage", headers: basicAuth(key.apiId, secret) })).statusCode === 200;
  const rollUrl = `/console/orgs/${orgId}/keys/${key.id}/roll`;
  expect((await admin.get(`/console/orgs/${orgId}/keys/${key.id}`)).body).toContain(`action="${rollUrl}"`);

  for (const overlap of ["604801", "-1", "soon"]) {
    const refused = await admin.post(rollUrl, { overlap_seconds: overlap });
    expect(refused.statusCode, overlap).toBe(400);
    expect(refused.body).toMatch(/role="alert">[^<]*\/overlap_seconds must be a whole number/);
    expect(refused.body).toContain(`value="${overlap}"`);
  }
  expect(await works(key.secret)).toBe(true);

  // Neither from another origin nor without the page's token.
  expect(
    (await admin.post(rollUrl, { overlap_seconds: "0" }, { origin: "http://evil.example" })).statusCode,
  ).toBe(403);
  expect((await admin.post(rollUrl, { overlap_seconds: "0", _csrf: "forged" })).statusCode).toBe(403);
  expect(await works(key.secret)).toBe(true);

  const rolled = await admin.follow(await admin.post(rollUrl, { overlap_seconds: "3600" }));
  expect(rolled.statusCode).toBe(200);
  expect(rolled.headers["cache-control"]).toBe("no-store");
  const secret = /id="secret">([^<]+)</.exec(rolled.body)?.[1] ?? "";
  expect(secret).toMatch(/^lksk_/);
  expect(secret).not.toBe(key.secret);
  expect(rolled.body).toContain('data-copy="secret"');
  expect(rolled.body).toContain("The previous secret works until");
  expect(rolled.body).toContain("2026-11-22 11:00:00 UTC");
  expect(await works(secret)).toBe(true);
  expect(await works(key.secret)).toBe(true);

  const detail = (await admin.get(`/console/orgs/${orgId}/keys/${key.id}`)).body;
  expect(detail).not.toContain(secret);
  expect(detail).toContain("works until 2026-11-22 11:00:00 UTC");

  clock.advance(3_600_000);
  expect(await works(key.secret)).toBe(false);
  expect(await works(secret)).toBe(true);

  const immediate = await admin.follow(await admin.post(rollUrl, { overlap_seconds: "0" }));
  expect(immediate.body).toContain("The previous secret stopped working at 2026-11-22 11:00:00 UTC");
  expect(await works(secret)).toBe(false);

  const audit = await app.inject({ url: "/v1/audit?count=100", headers: ownerKey.headers });
  const rolls = (audit.json().data as { action: string; actor: string }[]).filter(
    (entry) => entry.action === "api_key.roll",
  );
  expect(rolls.map((entry) => entry.actor)).toEqual([`user:${people.admin.id}`, `user:${people.admin.id}`]);
});
