import { expect, onTestFinished, test } from "vitest";
import { consoleUser } from "../helpers/console-session.js";
import { listeningApp, openConsole, sharedBrowser, signInWithForm } from "../helpers/console-browser.js";
import { describeWithServices } from "../helpers/services.js";

describeWithServices(["chromium"], "invitations in a real browser", ({ chromium }) => {
  const browser = sharedBrowser(() => chromium);

  test("an owner invites an account of another tenant, who sees the invitation on signing in and accepts it", async () => {
    const { testApp, base } = await listeningApp();
    const acme = await testApp.createOrganization("acme");
    const other = await testApp.createOrganization("other");
    await consoleUser(testApp, acme.orgId, "owner", "owner@acme.test");
    await consoleUser(testApp, other.orgId, "admin", "dana@other.test");

    const owner = await openConsole(browser(), base);
    onTestFinished(() => owner.context.close());
    await signInWithForm(owner.page, "owner@acme.test");
    await owner.page.goto(`/console/orgs/${acme.orgId}/members`);
    await owner.page.getByLabel("Email", { exact: true }).fill("dana@other.test");
    await owner.page.getByLabel("Role", { exact: true }).selectOption("admin");
    await owner.page.getByRole("button", { name: "Invite" }).click();
    await owner.page.getByRole("status").getByText("Invitation recorded.").waitFor();
    // The owner sees the invitation, nothing of the account (no two-factor column for it).
    expect(
      await owner.page.getByRole("button", { name: "Withdraw invitation of dana@other.test" }).count(),
    ).toBe(1);
    expect(await owner.page.getByRole("cell", { name: "dana@other.test", exact: true }).count()).toBe(1);

    const dana = await openConsole(browser(), base);
    onTestFinished(() => dana.context.close());
    await signInWithForm(dana.page, "dana@other.test");
    await dana.page.goto("/console/");
    await dana.page.getByRole("heading", { level: 1, name: "Invitations" }).waitFor();
    await dana.page.getByRole("button", { name: "Accept invitation to acme" }).click();
    await dana.page.getByRole("heading", { level: 1, name: "Keys" }).waitFor();
    expect(new URL(dana.page.url()).pathname).toBe(`/console/orgs/${acme.orgId}/keys`);

    await owner.page.reload();
    expect(
      await owner.page.getByRole("button", { name: "Withdraw invitation of dana@other.test" }).count(),
    ).toBe(0);
    expect(await owner.page.getByLabel("Role of dana@other.test", { exact: true }).inputValue()).toBe(
      "admin",
    );
  });
});
