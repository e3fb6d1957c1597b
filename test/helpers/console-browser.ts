import { execFileSync } from "node:child_process";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { buildTestApp, type TestApp, type TestAppOptions } from "./build-test-app.js";
import { CONSOLE_PASSWORD } from "./console-session.js";

/** playwright-core wants a path: a bare program name (the default, `chromium`) is looked up on PATH. */
function executablePath(program: string): string {
  if (program.includes("/")) return program;
  return execFileSync("sh", ["-c", 'command -v "$0"', program], { encoding: "utf8" }).trim();
}

/**
 * One browser per file, launched before its first test and closed after its last: starting chromium
 * costs a second or two, a fresh context per test costs nothing and shares no cookie.
 */
export function sharedBrowser(program: () => string): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: executablePath(program()) });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error("The browser is not launched yet.");
    return browser;
  };
}

/** A latchkey really listening on a free port of 127.0.0.1, closed when the test ends. */
export async function listeningApp(
  options: TestAppOptions = {},
): Promise<{ testApp: TestApp; base: string }> {
  const testApp = await buildTestApp(options);
  await testApp.app.listen({ port: 0, host: "127.0.0.1" });
  const address = testApp.app.server.address();
  if (!address || typeof address === "string") throw new Error("not listening");
  return { testApp, base: `http://127.0.0.1:${address.port}` };
}

/** A fresh browser context (no cookies) on the console, and its first page. */
export async function openConsole(
  browser: Browser,
  base: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: base });
  return { context, page: await context.newPage() };
}

/** Signs in through the form, as a person would; lands on the first organization's keys. */
export async function signInWithForm(page: Page, email: string, password = CONSOLE_PASSWORD): Promise<void> {
  await page.goto("/console/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/console/sign-in") || url.search === "");
  await page.getByRole("heading", { level: 1 }).waitFor();
}
