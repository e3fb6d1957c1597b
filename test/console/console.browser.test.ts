import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { expect, onTestFinished, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { consoleUser } from "../helpers/console-session.js";
import { listeningApp, openConsole, sharedBrowser, signInWithForm } from "../helpers/console-browser.js";
import { describeWithServices } from "../helpers/services.js";

/** Presses the page's copy button and reads back what reached the clipboard. */
async function copiedSecret(page: Page): Promise<string> {
  await page.getByRole("button", { name: "Copy secret" }).click();
  await page.getByText("Copied.").waitFor();
  return page.evaluate(() =>
    (
      globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
    ).navigator.clipboard.readText(),
  );
}

async function organizationWithPeople() {
  const { testApp, base } = await listeningApp();
  const ownerKey = await testApp.createOrganization("acme");
  for (const role of ["owner", "admin", "member"]) await consoleUser(testApp, ownerKey.orgId, role);
  return { testApp, base, orgId: ownerKey.orgId, ownerKey };
}

describeWithServices(["chromium"], "the console in a real browser", ({ chromium }) => {
  const browser = sharedBrowser(() => chromium);

  test("every page as each role: a member cannot create a key nor see webhooks, an admin cannot manage members", async () => {
    const { base, orgId } = await organizationWithPeople();
    for (const role of ["owner", "admin", "member"] as const) {
      const { context, page } = await openConsole(browser(), base);
      onTestFinished(() => context.close());
      await signInWithForm(page, `${role}@example.com`);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Keys");
      expect(await page.getByLabel("Organization").inputValue()).toBe(orgId);
      const sections = page.getByRole("navigation", { name: "Sections" });
      for (const [link, heading] of [
        ["Usage", "Usage"],
        ["Rate limits", "Rate limits"],
        ["Audit", "Audit"],
        ["Keys", "Keys"],
      ]) {
        await sections.getByRole("link", { name: link! }).click();
        await page.getByRole("heading", { level: 1, name: heading! }).waitFor();
      }
      expect(await page.getByRole("img", { name: "Images per hour, last 72 hours" }).count()).toBe(0);
      await sections.getByRole("link", { name: "Usage" }).click();
      expect(await page.getByRole("img", { name: "Images per hour, last 72 hours" }).count()).toBe(1);
      expect(await page.getByRole("img", { name: "Images per day, last 60 days" }).count()).toBe(1);
      await sections.getByRole("link", { name: "Keys" }).click();
      await page.getByRole("heading", { level: 1, name: "Keys" }).waitFor();

      expect(await page.getByRole("link", { name: "Create key" }).count(), role).toBe(
        role === "member" ? 0 : 1,
      );
      expect(await sections.getByRole("link", { name: "Members" }).count(), role).toBe(
        role === "owner" ? 1 : 0,
      );
      expect(await sections.getByRole("link", { name: "Webhooks" }).count(), role).toBe(
        role === "member" ? 0 : 1,
      );
      const webhooks = await page.goto(`/console/orgs/${orgId}/webhooks`);
      expect(webhooks?.status(), role).toBe(role === "member" ? 403 : 200);
      const members = await page.goto(`/console/orgs/${orgId}/members`);
      expect(members?.status(), role).toBe(role === "owner" ? 200 : 403);
      const create = await page.goto(`/console/orgs/${orgId}/keys/new`);
      expect(create?.status(), role).toBe(role === "member" ? 403 : 200);
      if (role === "member")
        expect(await page.getByRole("alert").textContent()).toContain("can read keys but not change them");
    }
  });

  test("a new key's secret is shown once with a working copy button, and never again", async () => {
    const { base, orgId } = await organizationWithPeople();
    const { context, page } = await openConsole(browser(), base);
    onTestFinished(() => context.close());
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
    await signInWithForm(page, "admin@example.com");
    await page.getByRole("link", { name: "Create key" }).click();
    await page.getByLabel("Name").fill("Render service");
    await page.getByLabel("Description").fill("Creates images for the shop");
    await page.getByLabel("images:create").check();
    await page.getByLabel("usage:read").check();
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("heading", { name: "Key created" }).waitFor();
    const secret = (await page.locator("#secret").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^lksk_/);
    expect(await copiedSecret(page)).toBe(secret);

    for (const url of [`/console/orgs/${orgId}/keys`]) {
      await page.goto(url);
      expect(await page.content()).not.toContain(secret);
    }
    await page.getByRole("link", { name: "Render service" }).click();
    await page.getByRole("heading", { level: 1, name: "Render service" }).waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByLabel("images:create").isChecked()).toBe(true);
    // Going back to the creation's response asks the server again (no-store): the secret is not replayed.
    await page.goBack();
    expect(await page.content()).not.toContain(secret);
  });

  test("a rolled key's new secret is shown once with a working copy button, and the previous one's end", async () => {
    const { testApp, base } = await organizationWithPeople();
    const { context, page } = await openConsole(browser(), base);
    onTestFinished(() => context.close());
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
    // The roll form asks for confirmation (data-confirm); a person would say yes.
    page.on("dialog", (dialog) => void dialog.accept());
    await signInWithForm(page, "admin@example.com");
    await page.getByRole("link", { name: "Create key" }).click();
    await page.getByLabel("Name").fill("Nightly export");
    await page.getByLabel("usage:read").check();
    await page.getByLabel("Expires (UTC)").fill("2099-01-01T12:00");
    await page.getByLabel("Allowed networks").fill("127.0.0.0/8\n::1/128");
    await page.getByLabel("Metadata").fill("team=data");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("heading", { name: "Key created" }).waitFor();
    const apiId = (await page.locator("#api-id").textContent())?.trim() ?? "";
    const first = (await page.locator("#secret").textContent())?.trim() ?? "";
    await page.getByRole("link", { name: "Edit this key" }).click();
    await page.getByRole("heading", { level: 1, name: "Nightly export" }).waitFor();
    expect(await page.getByLabel("Expires (UTC)").inputValue()).toBe("2099-01-01T12:00");
    expect(await page.getByLabel("Allowed networks").inputValue()).toBe("127.0.0.0/8\n::1/128");
    expect(await page.getByLabel("Metadata").inputValue()).toBe("team=data");

    await page.getByLabel("Overlap (seconds)").fill("900");
    await page.getByRole("button", { name: "Roll" }).click();
    await page.getByRole("heading", { name: "Key rolled" }).waitFor();
    const secret = (await page.locator("#secret").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^lksk_/);
    expect(secret).not.toBe(first);
    await page.getByText("The previous secret works until").waitFor();
    expect(await copiedSecret(page)).toBe(secret);
    for (const one of [secret, first]) {
      const usage = await testApp.app.inject({ url: "/v1/usage", headers: basicAuth(apiId, one) });
      expect(usage.statusCode).toBe(200);
    }

    await page.getByRole("link", { name: "Back to this key" }).click();
    await page.getByRole("heading", { level: 1, name: "Nightly export" }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.getByText(/works until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/).waitFor();
  });

  test("reloading the page after a create or a roll sends nothing again: one key, one roll, the secret shown once", async () => {
    const { testApp, base, orgId, ownerKey } = await organizationWithPeople();
    const { context, page } = await openConsole(browser(), base);
    onTestFinished(() => context.close());
    page.on("dialog", (dialog) => void dialog.accept());
    await signInWithForm(page, "owner@example.com");
    await page.getByRole("link", { name: "Create key" }).click();
    await page.getByLabel("Name").fill("Reloaded");
    await page.getByLabel("usage:read").check();
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("heading", { name: "Key created" }).waitFor();
    const apiId = (await page.locator("#api-id").textContent())?.trim() ?? "";
    const first = (await page.locator("#secret").textContent())?.trim() ?? "";
    expect(first).toMatch(/^lksk_/);

    // A reload is a GET of the page the POST redirected to: no second key, and the secret is not shown again.
    const reloaded = await page.reload();
    expect(reloaded?.request().method()).toBe("GET");
    await page.getByRole("heading", { name: "Key created" }).waitFor();
    expect(await page.locator("#secret").count()).toBe(0);
    await page.getByText("Its secret was shown once").waitFor();
    const keys = await testApp.app.inject({ url: "/v1/api-keys?count=100", headers: ownerKey.headers });
    expect((keys.json().data as { name: string }[]).map((key) => key.name).sort()).toEqual([
      "Owner key",
      "Reloaded",
    ]);
    const audit = await testApp.app.inject({ url: "/v1/audit", headers: ownerKey.headers });
    const creates = (audit.json().data as { action: string; actor: string }[]).filter(
      (entry) => entry.action === "api_key.create" && entry.actor.startsWith("user:"),
    );
    expect(creates).toHaveLength(1);

    // The same for a roll: reloaded, the key is not rolled again (a second roll would end the first
    // secret's overlap at once), and the new secret is not shown again.
    await page.goto(`/console/orgs/${orgId}/keys`);
    await page.getByRole("link", { name: "Reloaded" }).click();
    await page.getByRole("button", { name: "Roll" }).click();
    await page.getByRole("heading", { name: "Key rolled" }).waitFor();
    const rolled = (await page.locator("#secret").textContent())?.trim() ?? "";
    await page.reload();
    await page.getByRole("heading", { name: "Key rolled" }).waitFor();
    expect(await page.content()).not.toContain(rolled);
    for (const secret of [first, rolled]) {
      const usage = await testApp.app.inject({ url: "/v1/usage", headers: basicAuth(apiId, secret) });
      expect(usage.statusCode, secret === first ? "the first secret, in its overlap" : "the rolled one").toBe(
        200,
      );
    }
  });

  test("every page names the favicon, which is served, as /favicon.ico is", async () => {
    const { base, orgId } = await organizationWithPeople();
    const { context, page } = await openConsole(browser(), base);
    onTestFinished(() => context.close());
    await page.goto("/console/sign-in");
    const icons = new Set<string>();
    const iconOf = () => page.locator('link[rel="icon"]').getAttribute("href");
    icons.add((await iconOf()) ?? "");
    await signInWithForm(page, "owner@example.com");
    for (const section of ["keys", "usage", "limits", "audit", "connections", "members"]) {
      await page.goto(`/console/orgs/${orgId}/${section}`);
      icons.add((await iconOf()) ?? "");
    }
    expect([...icons]).toEqual(["/favicon.svg"]);
    for (const path of ["/favicon.svg", "/favicon.ico"]) {
      const icon = await page.request.get(path);
      expect(icon.status(), path).toBe(200);
      expect(icon.headers()["content-type"]).toMatch(/^image\/svg\+xml/);
    }
  });

  test("a form posted from another origin, or without its CSRF token, is refused and changes nothing", async () => {
    const { testApp, base, orgId, ownerKey } = await organizationWithPeople();
    // Another origin on the same host: the same site, so SameSite=Lax still sends the cookie, and
    // only the Origin check (and the token the attacker cannot read) stand in the way.
    const attacker = createServer((_request, response) => {
      response.setHeader("content-type", "text/html");
      response.end(`<form id="f" method="post" action="${base}/console/orgs/${orgId}/keys">
<input name="name" value="planted"><input name="all_future_permissions" value="true"></form>
<script>document.getElementById("f").submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => attacker.close(() => resolve())));
    const attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;

    const { context, page } = await openConsole(browser(), base);
    onTestFinished(() => context.close());
    await signInWithForm(page, "owner@example.com");
    const refused = page.waitForResponse(
      (response) => response.url().endsWith(`/orgs/${orgId}/keys`) && response.request().method() === "POST",
    );
    await page.goto(attackerUrl);
    expect((await refused).status()).toBe(403);
    await page.getByText("not sent from a latchkey console page").waitFor();

    await page.goto(`/console/orgs/${orgId}/keys`);
    const status = await page.evaluate(async (url) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "name=no-token&permissions=images%3Aread",
      });
      return response.status;
    }, `/console/orgs/${orgId}/keys`);
    expect(status).toBe(403);
    const keys = await testApp.app.inject({ url: "/v1/api-keys", headers: ownerKey.headers });
    expect(keys.json().data.map((key: { name: string }) => key.name)).toEqual(["Owner key"]);
  });

  test("sign-in is throttled: the sixth attempt within the window is refused even with the right password", async () => {
    const { base } = await organizationWithPeople();
    const { context, page } = await openConsole(browser(), base);
    onTestFinished(() => context.close());
    await page.goto("/console/sign-in");
    for (let attempt = 0; attempt < 5; attempt++) {
      await page.getByLabel("Email").fill("member@example.com");
      await page.getByLabel("Password").fill(`wrong password ${attempt}`);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page
        .getByRole("alert")
        .filter({ hasText: "Wrong email, password or two-factor code." })
        .waitFor();
    }
    await page.getByLabel("Email").fill("member@example.com");
    await page.getByLabel("Password").fill("correct horse battery staple");
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/console/sign-in") && r.request().method() === "POST"),
      page.getByRole("button", { name: "Sign in" }).click(),
    ]);
    expect(response.status()).toBe(429);
    await page.getByText("Too many sign-in attempts").waitFor();
    expect((await context.cookies()).filter((cookie) => cookie.name.includes("latchkey_session"))).toEqual(
      [],
    );
  });
});
