import { expect, test } from "vitest";
import { buildTestApp } from "../helpers/build-test-app.js";
import { consoleUser, signIn } from "../helpers/console-session.js";

// An owner of one organization used to add any email to it: an existing account (of another tenant)
// became a member at once, its two-factor status on show, and an unknown email was answered
// differently. Now every console "add" is an invitation the person accepts after signing in.

async function twoTenants(twoFactor = true) {
  const testApp = await buildTestApp();
  const mine = await testApp.createOrganization("mine");
  const theirs = await testApp.createOrganization("theirs");
  await consoleUser(testApp, mine.orgId, "owner", "owner@mine.test");
  const victim = await consoleUser(testApp, theirs.orgId, "admin", "victim@a.test");
  if (twoFactor)
    await testApp.services.consoleStore.setTotp(
      victim.id,
      { secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", step: 0 },
      {
        id: "aud_test",
        at: Date.now(),
        actor: "operator",
        orgId: null,
        action: "user.two_factor.update",
        targetId: victim.id,
        before: null,
        after: null,
      },
    );
  return { testApp, app: testApp.app, mine: mine.orgId, theirs: theirs.orgId, victim };
}

test("an existing account elsewhere and an unknown email get the same answer; neither becomes a member, no two-factor status shown", async () => {
  const { app, mine } = await twoTenants();
  const owner = await signIn(app, "owner@mine.test");
  const known = await owner.post(`/console/orgs/${mine}/members`, { email: "victim@a.test", role: "admin" });
  const unknown = await owner.post(`/console/orgs/${mine}/members`, {
    email: "nobody@a.test",
    role: "admin",
  });
  expect(known.statusCode).toBe(303);
  expect(unknown.statusCode).toBe(303);
  expect(known.headers.location).toBe(unknown.headers.location);
  const page = await owner.follow(known);
  expect(page.body).toContain("Invitation recorded.");
  // Both are waiting invitations, shown alike; the members table holds the owner alone.
  const members = page.body.slice(0, page.body.indexOf("<h2>Invitations</h2>"));
  expect(members).not.toContain("victim@a.test");
  expect(members.match(/data-label="Two-factor"/g)).toHaveLength(1);
  const invitations = page.body.slice(page.body.indexOf("<h2>Invitations</h2>"));
  const rowOf = (email: string) =>
    invitations
      .slice(invitations.indexOf(email) - 40, invitations.indexOf(email) + 400)
      .replaceAll(email, "E");
  expect(rowOf("victim@a.test")).toBe(rowOf("nobody@a.test"));
  expect(invitations).not.toContain("Two-factor");
  // With an initial password, both are answered alike again (the password is checked for both).
  const short = await owner.post(`/console/orgs/${mine}/members`, {
    email: "victim@a.test",
    role: "member",
    password: "short",
  });
  const shortUnknown = await owner.post(`/console/orgs/${mine}/members`, {
    email: "nobody2@a.test",
    role: "member",
    password: "short",
  });
  expect(short.statusCode).toBe(400);
  expect(shortUnknown.statusCode).toBe(400);
});

test("the invited person accepts after signing in and becomes a member with the invited role; the victim's password is untouched", async () => {
  const { testApp, app, mine, victim } = await twoTenants();
  const owner = await signIn(app, "owner@mine.test");
  await owner.post(`/console/orgs/${mine}/members`, {
    email: "Victim@A.test",
    role: "member",
    password: "an owner's chosen password",
  });
  expect((await testApp.services.consoleUsers.membershipsOf(victim.id)).map((m) => m.orgId)).not.toContain(
    mine,
  );
  // The victim's own password still works (the owner's was ignored); signing in shows the invitation first.
  const signInAs = await app.inject({
    method: "POST",
    url: "/console/sign-in",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost:80" },
    payload: "email=victim%40a.test&password=an+owner%27s+chosen+password",
  });
  expect(signInAs.statusCode).toBe(401);
  await owner.post(`/console/orgs/${mine}/members`, {
    email: "newcomer@b.test",
    role: "admin",
    password: "a long initial password",
  });
  const newcomer = await signIn(app, "newcomer@b.test", "a long initial password");
  const landing = await newcomer.get("/console/");
  expect(landing.headers.location).toBe("/console/invitations");
  const list = await newcomer.get("/console/invitations");
  expect(list.body).toContain("mine");
  const accepted = await newcomer.post(`/console/invitations/${mine}/accept`, {});
  expect(accepted.statusCode).toBe(303);
  expect(accepted.headers.location).toBe(`/console/orgs/${mine}/keys`);
  expect((await newcomer.follow(accepted)).statusCode).toBe(200);
  const memberships = await testApp.services.consoleUsers.list(mine);
  expect(memberships.find((m) => m.email === "newcomer@b.test")?.role).toBe("admin");
  // Used up: a second accept is 404, and the owner's list no longer shows it.
  expect((await newcomer.post(`/console/invitations/${mine}/accept`, {})).statusCode).toBe(404);
  expect((await owner.get(`/console/orgs/${mine}/members`)).body).not.toContain(
    "Withdraw invitation of newcomer@b.test",
  );
});

test("a declined or withdrawn invitation makes no member; accepting another's invitation is impossible", async () => {
  const { testApp, app, mine, victim } = await twoTenants(false);
  const owner = await signIn(app, "owner@mine.test");
  await owner.post(`/console/orgs/${mine}/members`, { email: "victim@a.test", role: "owner" });
  const victimBrowser = await signIn(app, "victim@a.test");
  // Still the victim's choice: nothing happened without an answer.
  expect((await testApp.services.consoleUsers.membershipsOf(victim.id)).map((m) => m.orgId)).not.toContain(
    mine,
  );
  const declined = await victimBrowser.post(`/console/invitations/${mine}/decline`, {});
  expect(declined.statusCode).toBe(303);
  expect((await victimBrowser.post(`/console/invitations/${mine}/accept`, {})).statusCode).toBe(404);
  await owner.post(`/console/orgs/${mine}/members`, { email: "victim@a.test", role: "member" });
  const withdrawn = await owner.post(`/console/orgs/${mine}/invitations/remove`, { email: "victim@a.test" });
  expect(withdrawn.statusCode).toBe(303);
  expect((await victimBrowser.post(`/console/invitations/${mine}/accept`, {})).statusCode).toBe(404);
  expect((await testApp.services.consoleUsers.membershipsOf(victim.id)).map((m) => m.orgId)).not.toContain(
    mine,
  );
});
