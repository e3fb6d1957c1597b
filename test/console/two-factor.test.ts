import { expect, test } from "vitest";
import { totpCode } from "../../src/domain/totp.js";
import { buildTestApp, fakeClock } from "../helpers/build-test-app.js";
import { CONSOLE_PASSWORD, consoleUser, form, ORIGIN, signIn } from "../helpers/console-session.js";

const FIFTEEN_MINUTES = 15 * 60_000;

async function setup() {
  const clock = fakeClock();
  const testApp = await buildTestApp({ clock });
  const { orgId } = await testApp.createOrganization();
  await consoleUser(testApp, orgId, "admin");
  return { clock, testApp, app: testApp.app, orgId };
}

const signInWith = (app: Awaited<ReturnType<typeof setup>>["app"], fields: Record<string, string>) =>
  app.inject({
    method: "POST",
    url: "/console/sign-in",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
    payload: form({ email: "admin@example.com", password: CONSOLE_PASSWORD, ...fields }),
  });

/** The setup page's proof that latchkey chose its secret. */
const proofOf = (page: string) => /name="secret_proof" value="([^"]+)"/.exec(page)?.[1] ?? "";

/** Turns two-factor on as a person would: the setup page's secret, then the password and the app's code. */
async function turnOn(browser: Awaited<ReturnType<typeof signIn>>, now: number) {
  const setupPage = await browser.get("/console/account/two-factor");
  expect(setupPage.statusCode).toBe(200);
  expect(setupPage.body).toContain("<svg");
  const secret = /name="secret" value="([A-Z2-7]{32})"/.exec(setupPage.body)?.[1] ?? "";
  expect(secret).not.toBe("");
  const enabled = await browser.post("/console/account/two-factor", {
    secret,
    secret_proof: proofOf(setupPage.body),
    current_password: CONSOLE_PASSWORD,
    code: totpCode(secret, now),
  });
  expect(enabled.statusCode).toBe(303);
  expect(enabled.headers.location).toBe("/console/account?notice=two-factor-on");
  return secret;
}

test("with two-factor on, signing in takes the password and the app's code, and each code works once", async () => {
  const { clock, testApp, app } = await setup();
  const browser = await signIn(app, "admin@example.com");
  expect((await browser.get("/console/account")).body).toContain("Turn on two-factor sign-in");
  const secret = await turnOn(browser, clock.now());
  expect((await browser.get("/console/account")).body).toContain("Turn off two-factor sign-in");

  // The code that turned it on is used up; no code, or a wrong one, is the same refusal as a wrong password.
  const refusals = [
    await signInWith(app, {}),
    await signInWith(app, { code: totpCode(secret, clock.now()) }),
    await signInWith(app, { code: "000000" === totpCode(secret, clock.now()) ? "111111" : "000000" }),
  ];
  for (const response of refusals) {
    expect(response.statusCode).toBe(401);
    expect(response.body).toContain("Wrong email, password or two-factor code.");
    expect(response.headers["set-cookie"]).toBeUndefined();
  }

  clock.advance(FIFTEEN_MINUTES);
  const code = totpCode(secret, clock.now());
  const signedIn = await signInWith(app, { code });
  expect(signedIn.statusCode).toBe(303);
  expect(String(signedIn.headers["set-cookie"])).toMatch(/^latchkey_session=/);
  expect((await signInWith(app, { code })).statusCode).toBe(401);
  const wrongPassword = await signInWith(app, {
    password: "not the password",
    code: totpCode(secret, clock.now() + 30_000),
  });
  expect(wrongPassword.statusCode).toBe(401);

  const { entries } = await testApp.services.audit.list({ orgId: null, count: 10 });
  const turnedOn = entries.find((e) => e.action === "user.two_factor.update");
  expect(turnedOn?.actor).toMatch(/^user:usr_/);
  expect(turnedOn?.after).toMatchObject({ two_factor: true });
  expect(JSON.stringify(entries)).not.toContain(secret);
});

test("turning two-factor on needs the current password and a secret latchkey chose for this session", async () => {
  const { clock, app } = await setup();
  const browser = await signIn(app, "admin@example.com");
  const setupPage = await browser.get("/console/account/two-factor");
  const secret = /name="secret" value="([A-Z2-7]{32})"/.exec(setupPage.body)?.[1] ?? "";
  const proof = proofOf(setupPage.body);
  const code = totpCode(secret, clock.now());
  // Without the password (a stolen session, say): refused.
  const noPassword = await browser.post("/console/account/two-factor", { secret, secret_proof: proof, code });
  expect(noPassword.statusCode).toBe(400);
  expect(noPassword.body).toContain("The current password is wrong");
  // A secret of the client's own choosing, with a valid code for it and the password: refused.
  const chosen = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
  const ownSecret = await browser.post("/console/account/two-factor", {
    secret: chosen,
    secret_proof: proof,
    current_password: CONSOLE_PASSWORD,
    code: totpCode(chosen, clock.now()),
  });
  expect(ownSecret.statusCode).toBe(400);
  expect(ownSecret.body).toContain("not one latchkey made for this session");
  expect(ownSecret.body).not.toContain(chosen);
  // Still off: the password alone signs in.
  expect((await signInWith(app, {})).statusCode).toBe(303);
});

test("a wrong first code turns nothing on and shows the same key again; turning off takes the current password", async () => {
  const { clock, app } = await setup();
  const browser = await signIn(app, "admin@example.com");
  const setupPage = await browser.get("/console/account/two-factor");
  const secret = /name="secret" value="([A-Z2-7]{32})"/.exec(setupPage.body)?.[1] ?? "";
  const wrongCode = totpCode(secret, clock.now() + 10 * 60_000);
  const refused = await browser.post("/console/account/two-factor", {
    secret,
    secret_proof: proofOf(setupPage.body),
    current_password: CONSOLE_PASSWORD,
    code: wrongCode,
  });
  expect(refused.statusCode).toBe(400);
  expect(refused.body).toContain("That code does not match");
  expect(refused.body).toContain(`value="${secret}"`);
  const forged = await browser.post("/console/account/two-factor", {
    secret: "not-a-secret",
    code: "123456",
  });
  expect(forged.statusCode).toBe(400);
  // Still off: the password alone signs in.
  expect((await signInWith(app, {})).statusCode).toBe(303);

  // Turning on takes the password too: a fresh window of sign-in attempts for what follows.
  clock.advance(FIFTEEN_MINUTES);
  await turnOn(browser, clock.now());
  const wrongPassword = await browser.post("/console/account/two-factor/off", {
    current_password: "not my password!",
  });
  expect(wrongPassword.statusCode).toBe(400);
  expect(wrongPassword.body).toContain("The current password is wrong");
  const off = await browser.post("/console/account/two-factor/off", { current_password: CONSOLE_PASSWORD });
  expect(off.statusCode).toBe(303);
  expect(off.headers.location).toBe("/console/account?notice=two-factor-off");
  clock.advance(FIFTEEN_MINUTES);
  expect((await signInWith(app, {})).statusCode).toBe(303);
});

test("owners see who has two-factor on; the operator turns it off (a lost phone), and the password alone signs in again", async () => {
  const { clock, testApp, app, orgId } = await setup();
  const browser = await signIn(app, "admin@example.com");
  await turnOn(browser, clock.now());
  expect((await signInWith(app, {})).statusCode).toBe(401);
  await consoleUser(testApp, orgId, "owner");
  const owner = await signIn(app, "owner@example.com");
  const members = (await owner.get(`/console/orgs/${orgId}/members`)).body;
  expect(members).toMatch(/admin@example\.com<\/td>\s*<td data-label="Two-factor">on<\/td>/);
  expect(members).toMatch(/owner@example\.com<\/td>\s*<td data-label="Two-factor">off<\/td>/);
  await testApp.services.consoleUsers.resetTwoFactor({ email: "ADMIN@example.com" });
  expect((await signInWith(app, {})).statusCode).toBe(303);
  const { entries } = await testApp.services.audit.list({ orgId: null, count: 10 });
  expect(entries.filter((e) => e.action === "user.two_factor.update").map((e) => e.actor)).toContain(
    "operator",
  );
});
