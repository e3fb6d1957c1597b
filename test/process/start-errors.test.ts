import { execFile } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { freePort } from "../helpers/free-port.js";
import { MAIN, tempDir } from "../helpers/processes.js";
import { scaledMs } from "../helpers/start-deadline.js";

/** Starts `node dist/main.js` with `env` and waits for it to exit (a refused start). */
function refusedStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN],
      {
        env: { ...process.env, HOST: "127.0.0.1", LATCHKEY_LOG_LEVEL: "info", ...env },
        timeout: scaledMs(20_000),
      },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    );
  });
}

const sqlite = () => `sqlite:${join(tempDir(), "latchkey.db")}`;

test("a port in use: the start says which, hints PORT and --port, and that the process exits", async () => {
  const taken = createServer();
  taken.listen(0, "127.0.0.1");
  await once(taken, "listening");
  onTestFinished(() => {
    taken.close();
  });
  const address = taken.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const start = await refusedStart({ PORT: String(port), LATCHKEY_DATABASE_URL: sqlite() });
  expect(start.code).toBe(1);
  expect(start.stderr).toContain(`Port ${port} of 127.0.0.1 is already in use`);
  expect(start.stderr).toContain(`PORT=${port + 1} or --port ${port + 1}`);
  expect(start.stderr).toContain("latchkey did not start and exits.");
  expect(start.stderr).not.toContain("EADDRINUSE: address already in use");
});

test("an unsupported database URL names LATCHKEY_DATABASE_URL and never its password", async () => {
  const start = await refusedStart({
    PORT: String(await freePort()),
    LATCHKEY_DATABASE_URL: "mysql://root:hunter2@db:3306/latchkey",
  });
  expect(start.code).toBe(1);
  expect(start.stderr).toContain("LATCHKEY_DATABASE_URL is 'mysql://root:***@db:3306/latchkey'");
  expect(start.stderr).toContain("use sqlite:<path>");
  expect(start.stderr).toContain("latchkey did not start and exits.");
  expect(start.stderr).not.toContain("hunter2");
});

test("an unreachable PostgreSQL: host, port, the cause, LATCHKEY_DATABASE_URL and that the process exits", async () => {
  const nobody = await freePort();
  const start = await refusedStart({
    PORT: String(await freePort()),
    LATCHKEY_DATABASE_URL: `postgres://latchkey:hunter2@127.0.0.1:${nobody}/latchkey`,
  });
  expect(start.code).toBe(1);
  expect(start.stderr).toContain(
    `Cannot open PostgreSQL 127.0.0.1:${nobody}/latchkey (LATCHKEY_DATABASE_URL): connection refused: nothing listens at that address and port (ECONNREFUSED).`,
  );
  expect(start.stderr).toContain("set LATCHKEY_DATABASE_URL to the address it listens on");
  expect(start.stderr).toContain("latchkey did not start and exits.");
  // Not the words of a request's 503, which would read as if the process carried on.
  expect(start.stderr).not.toContain("Retry in a second");
  expect(start.stderr).not.toContain("hunter2");
});

test("a PostgreSQL host that does not resolve is told as such", async () => {
  const start = await refusedStart({
    PORT: String(await freePort()),
    LATCHKEY_DATABASE_URL: "postgres://latchkey@no-such-host.invalid:5432/latchkey",
  });
  expect(start.code).toBe(1);
  expect(start.stderr).toContain(
    "Cannot open PostgreSQL no-such-host.invalid:5432/latchkey (LATCHKEY_DATABASE_URL): the host name",
  );
  expect(start.stderr).toContain("latchkey did not start and exits.");
});
