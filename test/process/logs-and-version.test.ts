import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test, vi } from "vitest";
import { latchkey, startServer, tempDir } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";

/** What an operator sees of a running process: its log lines in either format, and its version. */

const packageJson = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

async function serverWithLogs(format?: string) {
  const env: Record<string, string> = {
    LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
    LATCHKEY_BOOTSTRAP: "off",
    LATCHKEY_LOG_LEVEL: "info",
    ...(format ? { LATCHKEY_LOG_FORMAT: format } : {}),
  };
  const server = await startServer(env, await freePort());
  expect((await fetch(`${server.baseUrl}/v1/api-keys`)).status).toBe(401);
  // Waits for the 401's line (the start-up's /healthz polls are logged too).
  await vi.waitFor(() => expect(server.stdout()).toMatch(/status\W+401/), { timeout: 10_000 });
  server.child.kill("SIGTERM");
  expect(await server.exited).toBe(0);
  return server.stdout().split("\n").filter(Boolean);
}

test("logs are JSON lines by default, one object per line with level, message and request id", async () => {
  const lines = await serverWithLogs();
  const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const completed = records.find((record) => record.msg === "request completed" && record.status === 401);
  expect(completed).toMatchObject({
    level: 30,
    method: "GET",
    route: "/v1/api-keys",
    duration_ms: expect.any(Number),
  });
  expect(completed?.request_id).toEqual(expect.any(String));
});

test("LATCHKEY_LOG_FORMAT=pretty writes the same records for people, not JSON", async () => {
  const lines = await serverWithLogs("pretty");
  const completed = lines.find((line) => line.includes("request completed"));
  expect(completed).toMatch(/INFO.*request completed/);
  expect(() => JSON.parse(completed as string)).toThrow();
  // The request's fields follow on indented lines.
  expect(lines.some((line) => /^\s+request_id: "/.test(line))).toBe(true);
});

test("latchkey --version prints the package's version", async () => {
  const { stdout } = await latchkey(["--version"], {});
  expect(stdout.trim()).toBe(packageJson.version);
  expect((await latchkey(["-V"], {})).stdout.trim()).toBe(packageJson.version);
});
