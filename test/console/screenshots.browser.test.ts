import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { expect, onTestFinished, test } from "vitest";
import { totpCode } from "../../src/domain/totp.js";
import { fakeClock } from "../helpers/build-test-app.js";
import { listeningApp, sharedBrowser } from "../helpers/console-browser.js";
import { showcaseOrganization } from "../helpers/console-showcase.js";
import { describeWithServices } from "../helpers/services.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

/** `npm run screenshots` sets this: the pictures of docs/console.md are then written, else only looked at. */
const WRITE = process.env.LATCHKEY_SCREENSHOTS === "1";
const folder =
  process.env.LATCHKEY_SCREENSHOTS_DIR ?? fileURLToPath(new URL("../../docs/images/", import.meta.url));

interface Box {
  outerHTML: string;
  getBoundingClientRect(): { right: number };
}

/**
 * How much wider than the window the page is (0 when it fits: no horizontal scroll), and the elements
 * that reach past its right edge, for the message when it does not fit.
 */
const overflow = (page: Page) =>
  page.evaluate(() => {
    const { document } = globalThis as unknown as {
      document: {
        documentElement: { scrollWidth: number; clientWidth: number };
        querySelectorAll(selector: string): Iterable<Box>;
      };
    };
    const root = document.documentElement;
    const past = [...document.querySelectorAll("body *")]
      .filter((element) => element.getBoundingClientRect().right > root.clientWidth + 0.5)
      .slice(0, 8)
      .map((element) => `${element.outerHTML.slice(0, 60)} (right ${element.getBoundingClientRect().right})`);
    return { by: root.scrollWidth - root.clientWidth, past };
  });

describeWithServices(["chromium"], "the console at a phone's and a desktop's width", ({ chromium }) => {
  const browser = sharedBrowser(() => chromium);

  for (const width of [360, 1440]) {
    test(`at ${width} px every page fits the width, from sign-in to the first key, usage, members, webhooks and two-factor sign-in`, async () => {
      const clock = fakeClock();
      // Webhooks go to a receiver on 127.0.0.1 over http: private addresses allowed.
      const { testApp, base } = await listeningApp({
        clock,
        env: { LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on", LATCHKEY_WEBHOOKS_POLL_MS: "50" },
      });
      const receiver = await startWebhookReceiver();
      const now = Date.parse("2026-11-27T15:20:00.000Z");
      const { orgId, rendererId } = await showcaseOrganization(testApp, clock, now);
      const context = await browser().newContext({
        baseURL: base,
        viewport: { width, height: width < 800 ? 760 : 900 },
      });
      onTestFinished(() => context.close());
      const page = await context.newPage();
      const fits = async (name: string) => {
        if (WRITE) {
          mkdirSync(folder, { recursive: true });
          await page.screenshot({
            path: `${folder}console-${name}-${width}.png`,
            fullPage: true,
            animations: "disabled",
          });
        }
        const wider = await overflow(page);
        expect(wider.by, `${name} at ${width} px: ${wider.past.join(", ")}`).toBeLessThanOrEqual(0);
      };

      await page.goto("/console/sign-in");
      await page.getByLabel("Email").fill("owner@example.com");
      await fits("sign-in");
      await page.getByLabel("Password").fill("correct horse battery staple");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { level: 1, name: "Keys" }).waitFor();
      await fits("keys");
      await page.getByRole("link", { name: "Create key" }).click();
      await page.getByLabel("Name").fill("Thumbnail worker");
      await page.getByLabel("Description").fill("Makes the small images of the catalogue");
      await page.getByLabel("images:create").check();
      await page.getByLabel("usage:read").check();
      await page.getByLabel("Metadata").fill("team=catalogue");
      await fits("create-key");
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("heading", { name: "Key created" }).waitFor();
      await fits("key-created");
      await page.goto(`/console/orgs/${orgId}/keys/${rendererId}`);
      await fits("key");
      await page.getByLabel("Overlap (seconds)").fill("3600");
      page.once("dialog", (dialog) => void dialog.accept());
      await page.getByRole("button", { name: "Roll" }).click();
      await page.getByRole("heading", { name: "Key rolled" }).waitFor();
      await fits("key-rolled");
      for (const section of ["usage", "limits", "audit", "connections", "members"]) {
        await page.goto(`/console/orgs/${orgId}/${section}`);
        await fits(section);
      }
      await page.goto(`/console/orgs/${orgId}/webhooks/new`);
      await page.getByLabel("URL").fill(receiver.url);
      for (const event of ["api_key.created", "api_key.rolled", "webhook.test"])
        await page.getByLabel(event).check();
      await page.getByLabel("Description").fill("Audit log collector");
      await fits("add-webhook");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      await page.getByRole("heading", { level: 1, name: "Endpoint added" }).waitFor();
      await fits("webhook-added");
      receiver.secrets.push((await page.locator("#secret").textContent())?.trim() ?? "");
      // Two tests: the first finds the collector restarting, the second is received.
      await page.getByRole("link", { name: "Its attempts" }).click();
      for (const answer of [
        { status: 503, body: "Service Unavailable: the collector is restarting, try again in a minute" },
        { status: 200, body: '{"received":true}' },
      ]) {
        receiver.answer = answer;
        const before = receiver.deliveries.length;
        await page.getByRole("button", { name: "Send test event" }).click();
        await page.getByText("Test event queued").waitFor();
        await receiver.waitFor((all) => all.length > before);
      }
      await expect
        .poll(async () => {
          await page.reload();
          return page.locator("tbody tr").count();
        })
        .toBe(2);
      await fits("webhook-attempts");
      await page.getByRole("link", { name: "This endpoint" }).click();
      await page.getByRole("heading", { level: 1, name: "Webhook endpoint" }).waitFor();
      await fits("webhook");
      await page.goto(`/console/orgs/${orgId}/webhooks`);
      await fits("webhooks");
      await page.goto("/console/orgs/org_none/keys");
      await page.getByRole("heading", { level: 1, name: "Not found" }).waitFor();
      await fits("not-found");
      await page.goto(`/console/orgs/${orgId}/keys`);
      await page.getByRole("link", { name: "owner@example.com" }).click();
      await fits("account");
      await page.getByRole("link", { name: "Turn on two-factor sign-in" }).click();
      await fits("two-factor");
      const key = (await page.locator("code.secret").textContent())?.replace(/\s/g, "") ?? "";
      await page.getByLabel("Current password").fill("correct horse battery staple");
      await page.getByLabel("Code from the app").fill(totpCode(key, clock.now()));
      await page.getByRole("button", { name: "Turn on" }).click();
      await page.getByText("Two-factor sign-in is on").waitFor();
    });
  }
});
