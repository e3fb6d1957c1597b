import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { MAIN, tempDir } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";
import { scaledMs } from "../helpers/start-deadline.js";

const run = promisify(execFile);

/** Runs `node dist/main.js` until it exits (it must, on a bad routes file); returns its exit and stderr. */
async function startExpectingExit(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, [MAIN], {
      env: { ...process.env, PORT: String(await freePort()), LATCHKEY_LOG_LEVEL: "warn", ...env },
      timeout: scaledMs(20_000),
    });
    return { code: 0, stderr: "" };
  } catch (error) {
    const failed = error as { code: number; stderr: string; killed?: boolean };
    if (failed.killed) throw new Error("the server started instead of refusing the routes file");
    return { code: failed.code, stderr: failed.stderr };
  }
}

test("a malformed LATCHKEY_ROUTES file stops the start, and the message names the file and the line", async () => {
  const dir = tempDir();
  const routes = join(dir, "routes.json");
  writeFileSync(
    routes,
    [
      "[",
      '  { "method": "POST", "path": "/v1/image", "permission": "images:create", "credits": 1 },',
      '  { "method": "GET", "path": "/v1/proxies/*", "permission": "proxies:read", "group": "proxies:read" }',
      "]",
    ].join("\n"),
  );
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "latchkey.db")}`, LATCHKEY_ROUTES: routes };
  const bad = await startExpectingExit(env);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain(`LATCHKEY_ROUTES ${routes}: route 2 on line 3 has an unknown "group"`);
  // Nothing was printed as if the server had started: no first-start credentials.
  expect(bad.stderr).not.toContain("api_key:");

  writeFileSync(routes, '[\n  { "path": "/v1/image", "permission": "images:create" },\n]\n');
  const trailingComma = await startExpectingExit(env);
  expect(trailingComma.code).toBe(1);
  expect(trailingComma.stderr).toContain("not valid JSON on line 3");

  const missing = await startExpectingExit({ ...env, LATCHKEY_ROUTES: join(dir, "nope.json") });
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(`LATCHKEY_ROUTES: cannot read ${join(dir, "nope.json")}`);
});
