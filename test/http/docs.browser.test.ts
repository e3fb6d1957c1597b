import { expect, onTestFinished, test } from "vitest";
import { listeningApp, openConsole, sharedBrowser } from "../helpers/console-browser.js";
import { describeWithServices } from "../helpers/services.js";

describeWithServices(["chromium"], "the API reference in a real browser", ({ chromium }) => {
  const browser = sharedBrowser(() => chromium);

  test("/docs renders under its Content-Security-Policy, with no violation reported", async () => {
    const { testApp, base } = await listeningApp();
    onTestFinished(() => testApp.app.close());
    const { context, page } = await openConsole(browser(), base);
    onTestFinished(() => context.close());
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto("/docs");
    await page
      .getByRole("heading", { name: /latchkey/i })
      .first()
      .waitFor();
    expect(await page.getByText("POST").first().isVisible()).toBe(true);
    expect(violations).toEqual([]);
  });
});
