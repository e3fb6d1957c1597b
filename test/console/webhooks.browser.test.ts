import { expect, onTestFinished, test } from "vitest";
import { consoleUser } from "../helpers/console-session.js";
import { listeningApp, openConsole, sharedBrowser, signInWithForm } from "../helpers/console-browser.js";
import { describeWithServices } from "../helpers/services.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

describeWithServices(["chromium"], "the console's webhooks in a real browser", ({ chromium }) => {
  const browser = sharedBrowser(() => chromium);

  test("an admin adds an endpoint, sends a test, sees the attempt, resends it and sees a second; the receiver verifies both", async () => {
    // A receiver on 127.0.0.1 over http: allowed only with LATCHKEY_WEBHOOKS_ALLOW_PRIVATE=on.
    const { testApp, base } = await listeningApp({
      env: { LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on", LATCHKEY_WEBHOOKS_POLL_MS: "50" },
    });
    const { orgId } = await testApp.createOrganization("acme");
    await consoleUser(testApp, orgId, "admin");
    const receiver = await startWebhookReceiver();
    const { context, page } = await openConsole(browser(), base);
    onTestFinished(() => context.close());
    await signInWithForm(page, "admin@example.com");

    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
    await page.getByRole("link", { name: "Add endpoint" }).click();
    await page.getByLabel("URL").fill(receiver.url);
    await page.getByLabel("webhook.test").check();
    await page.getByLabel("api_key.leaked").check();
    await page.getByLabel("Description").fill("Security alerts");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByRole("heading", { level: 1, name: "Endpoint added" }).waitFor();
    const secret = (await page.locator("#secret").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^whsec_/);
    receiver.secrets.push(secret);
    // A reload asks the server again: the secret is not shown a second time.
    await page.reload();
    expect(await page.content()).not.toContain(secret);

    await page.getByRole("link", { name: "Its attempts" }).click();
    await page.getByRole("heading", { level: 1, name: "Delivery attempts" }).waitFor();
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByText("Test event queued").waitFor();
    await receiver.waitFor((all) => all.length === 1);
    const rows = page.locator("tbody tr");
    // The dispatcher records the attempt after the receiver answered: reload until the page lists it.
    await expect
      .poll(async () => {
        await page.reload();
        return rows.count();
      })
      .toBe(1);
    const messageId = receiver.deliveries[0]?.id ?? "";
    expect(await rows.first().getByRole("cell").nth(1).textContent()).toContain(messageId);
    expect(await rows.first().getByRole("cell").nth(2).textContent()).toContain("succeeded");

    await page.getByRole("button", { name: `Resend message ${messageId}` }).click();
    await page.getByText("Message queued again").waitFor();
    await receiver.waitFor((all) => all.length === 2);
    await expect
      .poll(async () => {
        await page.reload();
        return rows.count();
      })
      .toBe(2);
    // The same message twice (a resend keeps the webhook-id), both verified with the secret shown.
    expect(receiver.deliveries.map((delivery) => delivery.id)).toEqual([messageId, messageId]);
    expect(receiver.deliveries.map((delivery) => delivery.payload.type)).toEqual([
      "webhook.test",
      "webhook.test",
    ]);
    expect(receiver.rejected).toEqual([]);
  });
});
