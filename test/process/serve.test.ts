import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { latchkey, startServer, tempDir } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";

test("first start prints the owner key and a service token once; they work; SIGTERM stops the server cleanly", async () => {
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "db", "latchkey.db")}` };
  const first = await startServer(env, await freePort());
  const apiId = /api_id:\s+(\S+)/.exec(first.stderr())?.[1];
  const secret = /api_key:\s+(\S+)/.exec(first.stderr())?.[1];
  expect(first.stderr()).toContain("organization 'default'");
  expect(apiId).toMatch(/^lkid_/);
  expect(secret).toMatch(/^lksk_/);

  const created = await fetch(`${first.baseUrl}/v1/api-keys`, {
    method: "POST",
    headers: { ...basicAuth(apiId as string, secret as string), "content-type": "application/json" },
    body: JSON.stringify({ name: "worker", permissions: ["images:create"] }),
  });
  expect(created.status).toBe(200);

  // The service token printed beside it lets a platform service ask about the owner key's requests.
  const token = /service token:\s+(\S+)/.exec(first.stderr())?.[1];
  expect(token).toMatch(/^lkst_/);
  const decision = await fetch(`${first.baseUrl}/v1/authorize`, {
    method: "POST",
    headers: { "x-latchkey-service-token": token as string, "content-type": "application/json" },
    body: JSON.stringify({
      authorization: basicAuth(apiId as string, secret as string).authorization,
      permission: "images:create",
    }),
  });
  expect(await decision.json()).toMatchObject({ allowed: true, status: 200 });

  first.child.kill("SIGTERM");
  expect(await first.exited).toBe(0);

  const second = await startServer(env, await freePort());
  expect(second.stderr()).not.toContain("api_key:");
  expect(second.stderr()).not.toContain("lkst_");
  const list = await fetch(`${second.baseUrl}/v1/api-keys`, {
    headers: basicAuth(apiId as string, secret as string),
  });
  expect(
    ((await list.json()) as { data: { name: string }[] }).data.map((key: { name: string }) => key.name),
  ).toContain("worker");
  second.child.kill("SIGTERM");
  expect(await second.exited).toBe(0);
});

test("LATCHKEY_BOOTSTRAP=off creates no organization", async () => {
  const env = {
    LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
    LATCHKEY_BOOTSTRAP: "off",
  };
  const server = await startServer(env, await freePort());
  expect(server.stderr()).not.toContain("api_key:");
  server.child.kill("SIGTERM");
  expect(await server.exited).toBe(0);
});

test("latchkey serve --port listens on the given port, over an already migrated database", async () => {
  const env = {
    LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
    LATCHKEY_BOOTSTRAP: "off",
  };
  const { stdout } = await latchkey(["migrate"], env);
  expect(stdout).toContain("up to date");
  const port = await freePort();
  // PORT points elsewhere: the flag must win.
  const server = await startServer({ ...env, PORT: "1" }, port, ["serve", "--port", String(port)]);
  expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
  server.child.kill("SIGTERM");
  expect(await server.exited).toBe(0);
});

test("the built server finds the files it serves: the reference page and its script, the console's stylesheet, its own version and license", async () => {
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}` };
  const server = await startServer(env, await freePort());
  const installed = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
    license: string;
  };

  // The reference page's plugin serves files from its own folder in node_modules, outside the bundle.
  const page = await fetch(`${server.baseUrl}/docs`);
  expect(page.status).toBe(200);
  expect(await page.text()).toMatch(/<html/i);
  const script = await fetch(`${server.baseUrl}/docs/static/swagger-ui-bundle.js`);
  expect(script.status).toBe(200);
  expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);

  // The console's stylesheet holds Pico CSS, read from its package in node_modules, and Pico's icons
  // are served as files of their own (the CSP allows no data: image).
  const signIn = await (await fetch(`${server.baseUrl}/console/sign-in`)).text();
  const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(signIn)?.[1] ?? "";
  const css = await fetch(`${server.baseUrl}${stylesheet}`);
  expect(css.status).toBe(200);
  const cssText = await css.text();
  expect(cssText).toContain("Pico CSS");
  expect(cssText).not.toContain("data:image");
  const icon = /url\("(\/console\/assets\/icon-[^"]+)"\)/.exec(cssText)?.[1] ?? "";
  const iconResponse = await fetch(`${server.baseUrl}${icon}`);
  expect(iconResponse.status).toBe(200);
  expect(iconResponse.headers.get("content-type")).toMatch(/^image\/svg\+xml/);

  const document = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as {
    info: { version: string; license: { identifier: string } };
  };
  expect(document.info.version).toBe(installed.version);
  expect(document.info.license.identifier).toBe(installed.license);
});
