import { expect, test } from "vitest";
import { buildTestApp } from "../helpers/build-test-app.js";
import { CONSOLE_PASSWORD, consoleUser, signIn } from "../helpers/console-session.js";

const NEW_PASSWORD = "a much longer new passphrase";

async function setup() {
  const testApp = await buildTestApp();
  const { orgId } = await testApp.createOrganization();
  await consoleUser(testApp, orgId, "member");
  return { testApp, app: testApp.app, orgId };
}

test("a member changes their password: this browser stays signed in, every other one is signed out, and only the new password signs in", async () => {
  const { testApp, app, orgId } = await setup();
  const laptop = await signIn(app, "member@example.com");
  const phone = await signIn(app, "member@example.com");

  const keysPage = await laptop.get(`/console/orgs/${orgId}/keys`);
  expect(keysPage.body).toContain('href="/console/account"');
  const page = await laptop.get("/console/account");
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain("member@example.com");

  const changed = await laptop.post("/console/account/password", {
    current_password: CONSOLE_PASSWORD,
    password: NEW_PASSWORD,
    password_again: NEW_PASSWORD,
  });
  expect(changed.statusCode).toBe(303);
  expect(changed.headers.location).toBe("/console/account?notice=password");
  expect((await laptop.get("/console/account?notice=password")).body).toContain("Your password was changed.");
  expect((await laptop.get(`/console/orgs/${orgId}/keys`)).statusCode).toBe(200);
  const signedOut = await phone.get(`/console/orgs/${orgId}/keys`);
  expect(signedOut.statusCode).toBe(303);
  expect(signedOut.headers.location).toMatch(/^\/console\/sign-in/);

  const old = await app.inject({
    method: "POST",
    url: "/console/sign-in",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost:80" },
    payload: new URLSearchParams({ email: "member@example.com", password: CONSOLE_PASSWORD }).toString(),
  });
  expect(old.statusCode).toBe(401);
  await signIn(app, "member@example.com", NEW_PASSWORD);

  const { entries: trail } = await testApp.services.audit.list({ orgId: null, count: 10 });
  const entry = trail.find((e) => e.action === "user.password.update");
  expect(entry?.actor).toMatch(/^user:usr_/);
  expect(JSON.stringify(trail)).not.toContain(NEW_PASSWORD);
  expect(testApp.logs.join("\n")).not.toContain(NEW_PASSWORD);
});

test("a wrong current password, two different new ones or a short one are a 400 page naming the problem, and the password stays", async () => {
  const { app } = await setup();
  const browser = await signIn(app, "member@example.com");
  const attempts = [
    [
      { current_password: "not my password!", password: NEW_PASSWORD, password_again: NEW_PASSWORD },
      "The current password is wrong",
    ],
    [
      { current_password: CONSOLE_PASSWORD, password: NEW_PASSWORD, password_again: `${NEW_PASSWORD}!` },
      "The two new passwords differ",
    ],
    [{ current_password: CONSOLE_PASSWORD, password: "short", password_again: "short" }, "The new password"],
  ] as const;
  for (const [fields, message] of attempts) {
    const response = await browser.post("/console/account/password", fields);
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain(message);
  }
  expect((await browser.get("/console/account")).statusCode).toBe(200);
  await signIn(app, "member@example.com", CONSOLE_PASSWORD);
});

test("guessing the current password through the form counts against the account's sign-in limit", async () => {
  const { app } = await setup();
  const browser = await signIn(app, "member@example.com");
  const statuses = [];
  // One attempt was the sign-in itself: four more wrong ones reach the limit of five.
  for (let attempt = 0; attempt < 5; attempt++) {
    const response = await browser.post("/console/account/password", {
      current_password: `guess number ${attempt}`,
      password: NEW_PASSWORD,
      password_again: NEW_PASSWORD,
    });
    statuses.push(response.statusCode);
  }
  expect(statuses).toEqual([400, 400, 400, 400, 429]);
});
