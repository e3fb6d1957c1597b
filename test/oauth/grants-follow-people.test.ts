import { expect, test } from "vitest";
import { fakeClock } from "../helpers/build-test-app.js";
import { CONSOLE_PASSWORD, consoleUser, signIn } from "../helpers/console-session.js";
import { oauthFlow } from "../helpers/oauth-flow.js";

/**
 * A connection is its user's grant in one organization: it ends when the person's standing does
 * (docs/mcp-oauth.md). Each case makes the change where a person makes it (the console's pages, the
 * operator's service calls that `latchkey user ...` runs; the CLI itself in test/cli/user-oauth.test.ts)
 * and then uses the connection's access and refresh tokens.
 */

type Flow = Awaited<ReturnType<typeof oauthFlow>>;

async function connected(flow: Flow) {
  const tokens = await flow.tokens();
  expect((await flow.mcp(tokens.access_token)).statusCode).toBe(200);
  return tokens;
}

async function expectEnded(flow: Flow, tokens: { access_token: string; refresh_token: string }) {
  const call = await flow.mcp(tokens.access_token);
  expect(call.statusCode).toBe(401);
  expect(String(call.headers["www-authenticate"])).toContain('error="invalid_token"');
  const refresh = await flow.token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token });
  expect(refresh.statusCode).toBe(400);
  expect(refresh.json()).toMatchObject({ error: "invalid_grant" });
}

async function revocations(flow: Flow) {
  const audit = await flow.app.inject({ url: "/v1/audit", headers: flow.owner.headers });
  return (audit.json().data as { action: string; actor: string; after: { reason?: string } | null }[])
    .filter((e) => e.action === "mcp_connection.revoke")
    .map((e) => ({ actor: e.actor, reason: e.after?.reason }));
}

async function revokedMetric(flow: Flow, reason: string): Promise<number> {
  const page = (await flow.app.inject({ url: "/metrics" })).body;
  const line = page
    .split("\n")
    .find((l) => l.startsWith(`latchkey_oauth_connections_revoked_total{reason="${reason}"}`));
  return Number(line?.split(" ")[1] ?? 0);
}

/** The organization's owner, signed in to the console. */
async function ownerBrowser(flow: Flow) {
  await consoleUser(flow.testApp, flow.owner.orgId, "owner");
  return signIn(flow.app, "owner@example.com");
}

test("an owner removes the admin in the console: the admin's connection is refused at once, audited and counted", async () => {
  const flow = await oauthFlow();
  const tokens = await connected(flow);
  const owner = await ownerBrowser(flow);
  const removed = await owner.post(
    `/console/orgs/${flow.owner.orgId}/members/${flow.adminUser.id}/remove`,
    {},
  );
  expect(removed.statusCode).toBe(303);
  await expectEnded(flow, tokens);
  const ownerUser = await flow.testApp.services.consoleStore.findUserByEmail("owner@example.com");
  expect(await revocations(flow)).toEqual([{ actor: `user:${ownerUser?.id}`, reason: "member_removed" }]);
  expect(await revokedMetric(flow, "member_removed")).toBe(1);
});

test("a demotion to member ends the connection (a read-only member must not write through it)", async () => {
  const flow = await oauthFlow();
  const tokens = await connected(flow);
  const owner = await ownerBrowser(flow);
  const demoted = await owner.post(`/console/orgs/${flow.owner.orgId}/members/${flow.adminUser.id}`, {
    role: "member",
  });
  expect(demoted.statusCode).toBe(303);
  await expectEnded(flow, tokens);
  expect((await revocations(flow)).map((r) => r.reason)).toEqual(["role_changed"]);
  expect(await revokedMetric(flow, "role_changed")).toBe(1);
  // Promoted back, the old connection stays ended: a new consent makes a new one.
  await owner.post(`/console/orgs/${flow.owner.orgId}/members/${flow.adminUser.id}`, { role: "admin" });
  await expectEnded(flow, tokens);
});

test("an owner made admin keeps the connection (admins may grant one)", async () => {
  const flow = await oauthFlow();
  const owner = await ownerBrowser(flow);
  await owner.post(`/console/orgs/${flow.owner.orgId}/members/${flow.adminUser.id}`, { role: "owner" });
  const tokens = await connected(flow);
  await owner.post(`/console/orgs/${flow.owner.orgId}/members/${flow.adminUser.id}`, { role: "admin" });
  expect((await flow.mcp(tokens.access_token)).statusCode).toBe(200);
  expect(await revocations(flow)).toEqual([]);
});

test("the admin changes their own password on the account page: their connections end", async () => {
  const flow = await oauthFlow();
  const tokens = await connected(flow);
  const changed = await flow.admin.post("/console/account/password", {
    current_password: CONSOLE_PASSWORD,
    password: "a brand new passphrase here",
    password_again: "a brand new passphrase here",
  });
  expect(changed.statusCode).toBe(303);
  await expectEnded(flow, tokens);
  expect(await revocations(flow)).toEqual([
    { actor: `user:${flow.adminUser.id}`, reason: "password_changed" },
  ]);
});

test("the operator's password reset, two-factor reset and user removal each end the user's connections", async () => {
  const cases = [
    [
      "password_reset",
      (f: Flow) =>
        f.testApp.services.consoleUsers.resetPassword({
          email: "admin@example.com",
          password: "another long passphrase",
        }),
    ],
    [
      "two_factor_reset",
      (f: Flow) => f.testApp.services.consoleUsers.resetTwoFactor({ email: "admin@example.com" }),
    ],
    ["user_removed", (f: Flow) => f.testApp.services.consoleUsers.remove({ email: "admin@example.com" })],
  ] as const;
  for (const [reason, change] of cases) {
    const flow = await oauthFlow();
    const tokens = await connected(flow);
    await change(flow);
    await expectEnded(flow, tokens);
    expect(await revocations(flow), reason).toEqual([{ actor: "operator", reason }]);
    expect(await revokedMetric(flow, reason), reason).toBe(1);
  }
});

test("every request reads the user's role now: a role changed by a path that revokes nothing is refused all the same", async () => {
  const flow = await oauthFlow();
  const tokens = await connected(flow);
  // The store's own write, without the service's revocation: what a forgotten code path would do.
  await flow.testApp.services.consoleStore.putMembership(
    { userId: flow.adminUser.id, orgId: flow.owner.orgId, role: "member", createdAt: 0 },
    (before) => ({
      id: "aud_00000000000000000000001",
      at: 0,
      actor: "operator",
      orgId: flow.owner.orgId,
      action: "membership.update",
      targetId: flow.adminUser.id,
      before: null,
      after: { role: before?.role ?? null },
    }),
  );
  await expectEnded(flow, tokens);
});

test("a code whose user lost the role between consent and exchange issues nothing", async () => {
  const flow = await oauthFlow();
  const { code, verifier } = await flow.authorize();
  await flow.testApp.services.consoleUsers.setRole(
    { userId: flow.adminUser.id, orgId: flow.owner.orgId, role: "member" },
    "operator",
  );
  const exchange = await flow.token({
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: "http://127.0.0.1:9/callback",
  });
  expect(exchange.statusCode).toBe(400);
  expect(exchange.json()).toMatchObject({ error: "invalid_grant" });
  expect(await flow.testApp.services.mcpOauth.list(flow.owner.orgId)).toEqual([]);
});

test("a connection lives LATCHKEY_OAUTH_MAX_DAYS from consent whatever its refreshes; the last access token ends with it", async () => {
  const clock = fakeClock();
  const flow = await oauthFlow({ clock, env: { LATCHKEY_OAUTH_MAX_DAYS: "2" } });
  let tokens = await connected(flow);
  // Refreshed every hour for two days, less the last half hour.
  for (let hour = 1; hour < 48; hour++) {
    clock.advance(3_600_000);
    const refreshed = await flow.token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect(refreshed.statusCode, `hour ${hour}`).toBe(200);
    tokens = refreshed.json();
  }
  clock.advance(30 * 60_000);
  const last = await flow.token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token });
  expect(last.statusCode).toBe(200);
  expect(last.json().expires_in).toBe(30 * 60);
  tokens = last.json();
  clock.advance(30 * 60_000);
  await expectEnded(flow, tokens);
});

test("a replayed code and a reused refresh token are audited as the system's revocations and counted", async () => {
  const flow = await oauthFlow();
  const { code, verifier } = await flow.authorize();
  const exchange = {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: "http://127.0.0.1:9/callback",
  };
  expect((await flow.token(exchange)).statusCode).toBe(200);
  expect((await flow.token(exchange)).statusCode).toBe(400);
  const first = await flow.tokens();
  expect(
    (await flow.token({ grant_type: "refresh_token", refresh_token: first.refresh_token })).statusCode,
  ).toBe(200);
  expect(
    (await flow.token({ grant_type: "refresh_token", refresh_token: first.refresh_token })).statusCode,
  ).toBe(400);
  expect(await revocations(flow)).toEqual(
    expect.arrayContaining([
      { actor: "system", reason: "code_reused" },
      { actor: "system", reason: "refresh_token_reused" },
    ]),
  );
  expect(await revokedMetric(flow, "code_reused")).toBe(1);
  expect(await revokedMetric(flow, "refresh_token_reused")).toBe(1);
});
