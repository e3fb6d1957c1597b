import { expect, test } from "vitest";
import { buildTestApp, type TestKey } from "../helpers/build-test-app.js";
import { type ConsoleBrowser, consoleUser, signIn } from "../helpers/console-session.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

/** http and loopback receivers allowed; the outbox looked at every 20 ms. */
const LOOPBACK = { LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on", LATCHKEY_WEBHOOKS_POLL_MS: "20" };

async function organizationWithPeople(env: Record<string, string> = LOOPBACK) {
  const testApp = await buildTestApp({ env });
  const ownerKey = await testApp.createOrganization();
  const orgId = ownerKey.orgId;
  for (const role of ["owner", "admin", "member"]) await consoleUser(testApp, orgId, role);
  return { testApp, app: testApp.app, orgId, ownerKey };
}

const secretOf = (body: string) => /id="secret">([^<]+)</.exec(body)?.[1] ?? "";
const endpointIdOf = (location: unknown) =>
  /webhooks\/(whe_[0-9A-Za-z]+)\//.exec(String(location))?.[1] ?? "";

/** The organization's endpoints as REST lists them. */
async function endpointsOverRest(app: Awaited<ReturnType<typeof buildTestApp>>["app"], owner: TestKey) {
  const list = await app.inject({ url: "/v1/webhook-endpoints?count=100", headers: owner.headers });
  return list.json<{
    data: { id: string; url: string; events: string[]; description: string | null; enabled: boolean }[];
  }>().data;
}

/** Adds an endpoint through the form; its id and the secret its page showed. */
async function addWithForm(
  browser: ConsoleBrowser,
  orgId: string,
  fields: Record<string, string | string[]>,
) {
  const posted = await browser.post(`/console/orgs/${orgId}/webhooks`, fields);
  expect(posted.statusCode, posted.body).toBe(303);
  const shown = await browser.follow(posted);
  return { id: endpointIdOf(posted.headers.location), secret: secretOf(shown.body), posted, shown };
}

test("owners and admins see the Webhooks tab and its pages; a member sees neither, and every route refuses them", async () => {
  const { app, orgId, ownerKey } = await organizationWithPeople();
  const created = await app.inject({
    method: "POST",
    url: "/v1/webhook-endpoints",
    headers: ownerKey.headers,
    payload: { url: "http://127.0.0.1:9/hooks", events: ["api_key.created"] },
  });
  const endpointId = created.json<{ id: string }>().id;
  const pages = ["webhooks", "webhooks/new", `webhooks/${endpointId}`, `webhooks/${endpointId}/attempts`];
  for (const role of ["owner", "admin", "member"] as const) {
    const browser = await signIn(app, `${role}@example.com`);
    const allowed = role !== "member";
    for (const page of pages) {
      const response = await browser.get(`/console/orgs/${orgId}/${page}`);
      expect(response.statusCode, `${role} ${page}`).toBe(allowed ? 200 : 403);
    }
    const nav = (await browser.get(`/console/orgs/${orgId}/keys`)).body;
    expect(nav.includes(`/console/orgs/${orgId}/webhooks"`), role).toBe(allowed);
  }

  const member = await signIn(app, "member@example.com");
  const refused = await member.post(`/console/orgs/${orgId}/webhooks`, {
    url: "http://127.0.0.1:9/other",
    events: "api_key.created",
  });
  expect(refused.statusCode).toBe(403);
  expect(refused.body).toContain("cannot see its webhooks");
  for (const action of ["test", "rotate-secret", "delete", ""]) {
    const path = `/console/orgs/${orgId}/webhooks/${endpointId}${action ? `/${action}` : ""}`;
    const answer = await member.post(path, { url: "http://127.0.0.1:9/changed", events: "api_key.updated" });
    expect(answer.statusCode, action).toBe(403);
    expect(answer.body).not.toMatch(/whsec_/);
  }
  const resend = await member.post(
    `/console/orgs/${orgId}/webhooks/${endpointId}/messages/msg_none/resend`,
    {},
  );
  expect(resend.statusCode).toBe(403);
  // Nothing changed, nothing was added, no test queued.
  expect(await endpointsOverRest(app, ownerKey)).toEqual([
    expect.objectContaining({ id: endpointId, url: "http://127.0.0.1:9/hooks", events: ["api_key.created"] }),
  ]);
});

test("create shows the signing secret once (not on a reload, not to another session), and the secret signs the deliveries", async () => {
  const { app, orgId, ownerKey } = await organizationWithPeople();
  const receiver = await startWebhookReceiver();
  const admin = await signIn(app, "admin@example.com");
  const form = (await admin.get(`/console/orgs/${orgId}/webhooks/new`)).body;
  expect(form).toContain('<label for="url">');
  // The checkboxes are the event types an organization may subscribe to, not the platform's.
  expect(form).toContain('value="api_key.leaked"');
  expect(form).toContain('value="credits.threshold_reached"');
  expect(form).not.toContain('value="organization.created"');

  const { id, secret, posted, shown } = await addWithForm(admin, orgId, {
    url: receiver.url,
    events: ["api_key.created", "webhook.test"],
    description: "billing alerts",
  });
  // POST-redirect-GET: the POST's answer holds no secret, its page does, not cached.
  expect(posted.body).not.toMatch(/whsec_/);
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(shown.headers["cache-control"]).toBe("no-store");
  expect(shown.body).toContain('data-copy="secret"');
  const again = await admin.follow(posted);
  expect(again.statusCode).toBe(200);
  expect(again.body).not.toContain(secret);
  expect(again.body).toContain("was shown once");
  const other = await signIn(app, "owner@example.com");
  expect((await other.get(String(posted.headers.location))).body).not.toContain(secret);
  for (const page of ["webhooks", `webhooks/${id}`, `webhooks/${id}/attempts`]) {
    expect((await admin.get(`/console/orgs/${orgId}/${page}`)).body, page).not.toContain(secret);
  }
  expect(await endpointsOverRest(app, ownerKey)).toEqual([
    expect.objectContaining({
      id,
      url: receiver.url,
      events: ["api_key.created", "webhook.test"],
      description: "billing alerts",
      enabled: true,
    }),
  ]);

  // The secret shown is the one the deliveries are signed with (the receiver verifies with it).
  receiver.secrets.push(secret);
  const tested = await admin.post(`/console/orgs/${orgId}/webhooks/${id}/test`, {});
  expect(tested.headers.location).toBe(`/console/orgs/${orgId}/webhooks/${id}/attempts?notice=tested`);
  await receiver.waitFor((all) => all.some((d) => d.payload.type === "webhook.test"));
  expect(receiver.rejected).toEqual([]);
});

test("edit changes url, events, description and enabled; delete removes the endpoint", async () => {
  const { app, orgId, ownerKey } = await organizationWithPeople();
  const owner = await signIn(app, "owner@example.com");
  const { id } = await addWithForm(owner, orgId, { url: "http://127.0.0.1:9/a", events: "api_key.created" });
  const edited = await owner.post(`/console/orgs/${orgId}/webhooks/${id}`, {
    url: "http://127.0.0.1:9/b",
    events: ["api_key.leaked", "rate_limit.exhausted"],
    description: "security",
    disabled: "true",
  });
  expect(edited.statusCode, edited.body).toBe(303);
  expect((await owner.follow(edited)).body).toContain("Changes saved.");
  expect(await endpointsOverRest(app, ownerKey)).toEqual([
    expect.objectContaining({
      url: "http://127.0.0.1:9/b",
      events: ["api_key.leaked", "rate_limit.exhausted"],
      description: "security",
      enabled: false,
    }),
  ]);
  const page = (await owner.get(`/console/orgs/${orgId}/webhooks/${id}`)).body;
  expect(page).toMatch(/id="disabled"[^>]*checked/);
  expect(page).toMatch(/value="api_key.leaked"\s*checked/);

  // Unticked "Disabled" enables it again; an emptied description is none.
  await owner.post(`/console/orgs/${orgId}/webhooks/${id}`, {
    url: "http://127.0.0.1:9/b",
    events: "api_key.leaked",
    description: "",
  });
  expect(await endpointsOverRest(app, ownerKey)).toEqual([
    expect.objectContaining({ enabled: true, description: null, events: ["api_key.leaked"] }),
  ]);

  const deleted = await owner.post(`/console/orgs/${orgId}/webhooks/${id}/delete`, {});
  expect(deleted.headers.location).toBe(`/console/orgs/${orgId}/webhooks?notice=deleted`);
  expect(await endpointsOverRest(app, ownerKey)).toEqual([]);
  expect((await owner.get(`/console/orgs/${orgId}/webhooks/${id}`)).statusCode).toBe(404);
});

test("refusals (URL not allowed, no event, too long, the quota) are shown on the form with what was typed; nothing is stored", async () => {
  const strict = await organizationWithPeople({});
  const admin = await signIn(strict.app, "admin@example.com");
  for (const [url, problem] of [
    ["http://hooks.example.com/x", "must use https"],
    ["https://127.0.0.1/hooks", "private, loopback"],
    ["https://user:pw@hooks.example.com/", "must not carry credentials"],
  ] as const) {
    const refused = await admin.post(`/console/orgs/${strict.orgId}/webhooks`, {
      url,
      events: "api_key.rolled",
      description: "kept <as typed>",
    });
    expect(refused.statusCode, url).toBe(400);
    expect(refused.body).toMatch(new RegExp(`role="alert">[^<]*${problem}`));
    expect(refused.body).toContain(`value="${url}"`);
    expect(refused.body).toMatch(/value="api_key.rolled"\s*checked/);
    expect(refused.body).toContain("kept &lt;as typed&gt;");
  }
  const noEvent = await admin.post(`/console/orgs/${strict.orgId}/webhooks`, {
    url: "https://hooks.example.com/",
  });
  expect(noEvent.statusCode).toBe(400);
  expect(noEvent.body).toMatch(/role="alert">[^<]*\/events/);
  const tooLong = await admin.post(`/console/orgs/${strict.orgId}/webhooks`, {
    url: `https://hooks.example.com/${"a".repeat(2000)}`,
    events: "api_key.created",
  });
  expect(tooLong.statusCode).toBe(400);
  expect(tooLong.body).toMatch(/role="alert">[^<]*\/url/);
  const platformOnly = await admin.post(`/console/orgs/${strict.orgId}/webhooks`, {
    url: "https://hooks.example.com/",
    events: "organization.created",
  });
  expect(platformOnly.statusCode).toBe(400);
  expect(await endpointsOverRest(strict.app, strict.ownerKey)).toEqual([]);

  // An edit refused the same way leaves the endpoint as it was and shows what was typed.
  const { app, orgId, ownerKey } = await organizationWithPeople();
  const owner = await signIn(app, "owner@example.com");
  const { id } = await addWithForm(owner, orgId, { url: "http://127.0.0.1:9/a", events: "api_key.created" });
  const badEdit = await owner.post(`/console/orgs/${orgId}/webhooks/${id}`, {
    url: "ftp://127.0.0.1/a",
    events: "api_key.updated",
  });
  expect(badEdit.statusCode).toBe(400);
  expect(badEdit.body).toMatch(/role="alert">[^<]*must use https or http/);
  expect(badEdit.body).toContain('value="ftp://127.0.0.1/a"');
  expect(await endpointsOverRest(app, ownerKey)).toEqual([
    expect.objectContaining({ url: "http://127.0.0.1:9/a", events: ["api_key.created"] }),
  ]);

  // The 21st endpoint: 409 on the form.
  for (let i = 1; i < 20; i++) {
    await addWithForm(owner, orgId, { url: `http://127.0.0.1:9/${i}`, events: "api_key.created" });
  }
  const list = (await owner.get(`/console/orgs/${orgId}/webhooks`)).body;
  expect(list).toContain("20 of 20 endpoints");
  expect(list).not.toContain(">Add endpoint</a>");
  const overQuota = await owner.post(`/console/orgs/${orgId}/webhooks`, {
    url: "http://127.0.0.1:9/21",
    events: "api_key.created",
  });
  expect(overQuota.statusCode).toBe(409);
  expect(overQuota.body).toMatch(/role="alert">[^<]*At most 20 webhook endpoints/);
  expect(overQuota.body).toContain('value="http://127.0.0.1:9/21"');
  expect(await endpointsOverRest(app, ownerKey)).toHaveLength(20);
});

test("forms from another origin or without the page's token change nothing", async () => {
  const { app, orgId, ownerKey } = await organizationWithPeople();
  const admin = await signIn(app, "admin@example.com");
  const fields = { url: "http://127.0.0.1:9/a", events: "api_key.created" };
  const foreign = await admin.post(`/console/orgs/${orgId}/webhooks`, fields, {
    origin: "http://evil.example",
  });
  expect(foreign.statusCode).toBe(403);
  const forged = await admin.post(`/console/orgs/${orgId}/webhooks`, { ...fields, _csrf: "forged" });
  expect(forged.statusCode).toBe(403);
  expect(await endpointsOverRest(app, ownerKey)).toEqual([]);

  const { id } = await addWithForm(admin, orgId, fields);
  for (const action of ["rotate-secret", "delete", "test"]) {
    const path = `/console/orgs/${orgId}/webhooks/${id}/${action}`;
    expect((await admin.post(path, {}, { origin: "http://evil.example" })).statusCode, action).toBe(403);
    expect((await admin.post(path, { _csrf: "forged" })).statusCode, action).toBe(403);
  }
  expect(await endpointsOverRest(app, ownerKey)).toHaveLength(1);
});

test("rotate shows the new secret once and says the old one stays valid 24 hours; both sign meanwhile", async () => {
  const { app, orgId } = await organizationWithPeople();
  const receiver = await startWebhookReceiver();
  const admin = await signIn(app, "admin@example.com");
  const { id, secret: first } = await addWithForm(admin, orgId, {
    url: receiver.url,
    events: "webhook.test",
  });
  const rotate = await admin.post(`/console/orgs/${orgId}/webhooks/${id}/rotate-secret`, {});
  expect(rotate.statusCode).toBe(303);
  expect(rotate.body).not.toMatch(/whsec_/);
  const rotated = await admin.follow(rotate);
  const second = secretOf(rotated.body);
  expect(second).toMatch(/^whsec_/);
  expect(second).not.toBe(first);
  expect(rotated.body).toContain("stays valid until");
  expect(rotated.body).toContain("(24 hours)");
  expect((await admin.follow(rotate)).body).not.toContain(second);
  expect((await admin.get(`/console/orgs/${orgId}/webhooks/${id}`)).body).toContain(
    "still signs beside the current one until",
  );

  // A receiver that still has only the old secret verifies the next event; one with only the new, too.
  receiver.secrets.push(first);
  await admin.post(`/console/orgs/${orgId}/webhooks/${id}/test`, {});
  await receiver.waitFor((all) => all.length === 1);
  receiver.secrets.splice(0, 1, second);
  await admin.post(`/console/orgs/${orgId}/webhooks/${id}/test`, {});
  await receiver.waitFor((all) => all.length === 2);
  expect(receiver.rejected).toEqual([]);
});

test("the attempts page lists each attempt with the receiver's answer escaped, pages, and resends a message", async () => {
  const { app, orgId } = await organizationWithPeople();
  const receiver = await startWebhookReceiver();
  receiver.answer = { status: 200, body: '<script>alert("owned")</script> & more' };
  const owner = await signIn(app, "owner@example.com");
  const { id, secret } = await addWithForm(owner, orgId, {
    url: receiver.url,
    events: "webhook.test",
    description: '<img src=x onerror="alert(1)">',
  });
  receiver.secrets.push(secret);
  for (const page of ["webhooks", `webhooks/${id}`]) {
    const body = (await owner.get(`/console/orgs/${orgId}/${page}`)).body;
    expect(body, page).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(body, page).not.toContain("<img src=x");
  }

  const attemptsPage = `/console/orgs/${orgId}/webhooks/${id}/attempts`;
  const tested = await owner.follow(await owner.post(`/console/orgs/${orgId}/webhooks/${id}/test`, {}));
  expect(tested.body).toContain("Test event queued");
  await receiver.waitFor((all) => all.length === 1);
  const rowsOf = async (url = attemptsPage) => {
    const body = (await owner.get(url)).body;
    return { body, rows: [...body.matchAll(/<tr>\s*<td data-label="When">/g)].length };
  };
  await expect.poll(async () => (await rowsOf()).rows).toBe(1);
  const { body } = await rowsOf();
  expect(body).toContain("&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt; &amp; more");
  expect(body).not.toContain("<script>alert");
  expect(body).toMatch(/data-label="Status">succeeded</);
  expect(body).toMatch(/data-label="Response">200</);
  const messageId = receiver.deliveries[0]?.id ?? "";
  expect(body).toContain(`${attemptsPage.replace("/attempts", "")}/messages/${messageId}/resend`);

  // Resend: the same message (its id kept) is delivered again, and a second attempt is listed.
  const resent = await owner.post(`/console/orgs/${orgId}/webhooks/${id}/messages/${messageId}/resend`, {});
  expect(resent.headers.location).toBe(`${attemptsPage}?notice=resent`);
  await receiver.waitFor((all) => all.length === 2);
  expect(receiver.deliveries.map((d) => d.id)).toEqual([messageId, messageId]);
  await expect.poll(async () => (await rowsOf()).rows).toBe(2);
  // Another endpoint's message, or none, is not found: nothing queued.
  const unknown = await owner.post(`/console/orgs/${orgId}/webhooks/${id}/messages/msg_unknown/resend`, {});
  expect(unknown.statusCode).toBe(404);

  // 20 a page: the 21st attempt is on the next page, reached by "Older attempts".
  for (let i = 0; i < 20; i++) await owner.post(`/console/orgs/${orgId}/webhooks/${id}/test`, {});
  await receiver.waitFor((all) => all.length === 22);
  await expect.poll(async () => (await rowsOf()).rows).toBe(20);
  const first = await rowsOf();
  const older = /href="([^"]+)"\s*>Older attempts/.exec(first.body)?.[1] ?? "";
  expect(older).toContain("attempts?page=");
  const second = await rowsOf(older.replaceAll("&amp;", "&"));
  expect(second.rows).toBe(2);
  expect(second.body).not.toContain("Older attempts");
});

test("another organization's endpoints are 404 from this one's pages", async () => {
  const { testApp, app, orgId } = await organizationWithPeople();
  const other = await testApp.createOrganization("other");
  const theirs = await app.inject({
    method: "POST",
    url: "/v1/webhook-endpoints",
    headers: other.headers,
    payload: { url: "http://127.0.0.1:9/theirs", events: ["api_key.created"] },
  });
  const theirId = theirs.json<{ id: string }>().id;
  const owner = await signIn(app, "owner@example.com");
  expect((await owner.get(`/console/orgs/${orgId}/webhooks/${theirId}`)).statusCode).toBe(404);
  expect((await owner.get(`/console/orgs/${other.orgId}/webhooks`)).statusCode).toBe(404);
  expect((await owner.post(`/console/orgs/${orgId}/webhooks/${theirId}/delete`, {})).statusCode).toBe(404);
  expect((await owner.post(`/console/orgs/${orgId}/webhooks/${theirId}/rotate-secret`, {})).statusCode).toBe(
    404,
  );
  const list = await app.inject({ url: "/v1/webhook-endpoints", headers: other.headers });
  expect(list.json<{ data: unknown[] }>().data).toHaveLength(1);
});

test("every change made on the webhooks pages is in the audit trail as user:<id>, without a signing secret", async () => {
  const { testApp, app, orgId, ownerKey } = await organizationWithPeople();
  const people = await testApp.services.consoleUsers.list(orgId);
  const adminId = people.find((person) => person.role === "admin")?.userId ?? "";
  const receiver = await startWebhookReceiver();
  const admin = await signIn(app, "admin@example.com");
  const { id, secret } = await addWithForm(admin, orgId, { url: receiver.url, events: "webhook.test" });
  receiver.secrets.push(secret);
  await admin.post(`/console/orgs/${orgId}/webhooks/${id}`, {
    url: receiver.url,
    events: ["webhook.test"],
    description: "x",
  });
  const rotated = await admin.follow(
    await admin.post(`/console/orgs/${orgId}/webhooks/${id}/rotate-secret`, {}),
  );
  await admin.post(`/console/orgs/${orgId}/webhooks/${id}/test`, {});
  await receiver.waitFor((all) => all.length === 1);
  const messageId = receiver.deliveries[0]?.id ?? "";
  await admin.post(`/console/orgs/${orgId}/webhooks/${id}/messages/${messageId}/resend`, {});
  await admin.post(`/console/orgs/${orgId}/webhooks/${id}/delete`, {});

  const audit = await app.inject({ url: "/v1/audit?count=100", headers: ownerKey.headers });
  const entries = audit
    .json<{ data: { action: string; actor: string }[] }>()
    .data.filter((entry) => entry.action.startsWith("webhook_"));
  expect(entries.map((entry) => entry.action).sort()).toEqual([
    "webhook_endpoint.create",
    "webhook_endpoint.delete",
    "webhook_endpoint.rotate_secret",
    "webhook_endpoint.test",
    "webhook_endpoint.update",
    "webhook_message.resend",
  ]);
  expect(new Set(entries.map((entry) => entry.actor))).toEqual(new Set([`user:${adminId}`]));
  expect(audit.body).not.toContain(secret);
  expect(audit.body).not.toContain(secretOf(rotated.body));
});
