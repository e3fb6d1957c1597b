import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, onTestFinished, test } from "vitest";
import { totpCode } from "../../src/domain/totp.js";
import { consoleUser } from "../helpers/console-session.js";
import { listeningApp, sharedBrowser } from "../helpers/console-browser.js";
import { describeWithServices } from "../helpers/services.js";

/** `npm run screenshots` sets this: the pictures of docs/console.md are then written, else only looked at. */
const WRITE = process.env.LATCHKEY_SCREENSHOTS === "1";
/** The pages docs/console.md shows, at both widths. */
const PICTURED = new Set(["create-key", "key-created", "usage", "limits", "two-factor"]);
const folder =
  process.env.LATCHKEY_SCREENSHOTS_DIR ?? fileURLToPath(new URL("../../docs/images/", import.meta.url));

describeWithServices(["chromium"], "the console at a phone's and a desktop's width", ({ chromium }) => {
  const browser = sharedBrowser(() => chromium);

  for (const width of [360, 1440]) {
    test(`at ${width} px every page fits the width, from sign-in to the first key, a new password and two-factor sign-in`, async () => {
      const { testApp, base } = await listeningApp();
      const { orgId } = await testApp.createOrganization("acme");
      await consoleUser(testApp, orgId, "owner");
      const context = await browser().newContext({
        baseURL: base,
        viewport: { width, height: width < 800 ? 740 : 900 },
      });
      onTestFinished(() => context.close());
      const page = await context.newPage();
      const fits = async (name: string) => {
        const overflow = await page.evaluate(() => {
          const root = (
            globalThis as unknown as {
              document: { documentElement: { scrollWidth: number; clientWidth: number } };
            }
          ).document.documentElement;
          return root.scrollWidth - root.clientWidth;
        });
        expect(overflow, `${name} at ${width} px`).toBeLessThanOrEqual(0);
        if (WRITE && PICTURED.has(name)) {
          mkdirSync(folder, { recursive: true });
          await page.screenshot({ path: `${folder}console-${name}-${width}.png`, fullPage: true });
        }
      };

      const started = Date.now();
      await page.goto("/console/sign-in");
      await fits("sign-in");
      await page.getByLabel("Email").fill("owner@example.com");
      await page.getByLabel("Password").fill("correct horse battery staple");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("link", { name: "Create key" }).click();
      await page.getByLabel("Name").fill("Render service");
      await page.getByLabel("images:create").check();
      await page.getByLabel("usage:read").check();
      await fits("create-key");
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("heading", { name: "Key created" }).waitFor();
      // Not asserted (tests assert no timing): printed for the notes, a person's clicks excluded.
      console.log(`console at ${width} px: sign-in to the first key's secret in ${Date.now() - started} ms`);
      await fits("key-created");
      for (const section of ["keys", "usage", "limits", "audit", "connections", "members"]) {
        await page.goto(`/console/orgs/${orgId}/${section}`);
        await fits(section);
      }
      await page.getByRole("link", { name: "owner@example.com" }).click();
      await page.getByLabel("Current password").fill("correct horse battery staple");
      await page.getByLabel("New password (at least 12 characters)").fill("a much longer new passphrase");
      await page.getByLabel("New password again").fill("a much longer new passphrase");
      await fits("account");
      await page.getByRole("button", { name: "Change password" }).click();
      await page.getByText("Your password was changed.").waitFor();
      await page.getByRole("link", { name: "Turn on two-factor sign-in" }).click();
      await fits("two-factor");
      const key = (await page.locator("code.secret").textContent())?.replace(/\s/g, "") ?? "";
      await page.getByLabel("Code from the app").fill(totpCode(key, Date.now()));
      await page.getByRole("button", { name: "Turn on" }).click();
      await page.getByText("Two-factor sign-in is on").waitFor();
    });
  }
});
