import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, onTestFinished, test, vi } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { latchkeyStatus, MAIN, startServer, tempDir } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";
import { describeWithServices } from "../helpers/services.js";

const root = new URL("../../", import.meta.url).pathname;

/** The sourceable `NAME=value` lines of the first-start credentials file. */
function readCredentials(path: string): Record<string, string> {
  const lines = readFileSync(path, "utf8").split("\n");
  return Object.fromEntries(
    lines.filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.split("=", 2) as [string, string]),
  );
}

test("the first start writes the owner key and service token to a 0600 file beside the database and prints only its path", async () => {
  const dir = tempDir();
  const server = await startServer(
    { LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "data", "latchkey.db")}`, LATCHKEY_BOOTSTRAP: "" },
    await freePort(),
  );
  const file = join(dir, "data", "first-start-credentials.env");
  expect(server.stderr()).toContain(file);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const credentials = readCredentials(file);
  expect(credentials.LATCHKEY_API_KEY).toMatch(/^lksk_/);
  expect(credentials.LATCHKEY_SERVICE_TOKEN).toMatch(/^lkst_/);
  // No secret reaches standard error or the log, which Docker and journald keep.
  for (const secret of [credentials.LATCHKEY_API_KEY, credentials.LATCHKEY_SERVICE_TOKEN]) {
    expect(server.stderr()).not.toContain(secret);
    expect(server.stdout()).not.toContain(secret);
  }
  const read = await fetch(`${server.baseUrl}/v1/api-keys`, {
    headers: basicAuth(credentials.LATCHKEY_API_ID ?? "", credentials.LATCHKEY_API_KEY ?? ""),
  });
  expect(read.status).toBe(200);
});

test("LATCHKEY_BOOTSTRAP_FILE names where the credentials go", async () => {
  const dir = tempDir();
  const file = join(dir, "secrets", "latchkey-first.env");
  await startServer(
    {
      LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "latchkey.db")}`,
      LATCHKEY_BOOTSTRAP: "",
      LATCHKEY_BOOTSTRAP_FILE: file,
    },
    await freePort(),
  );
  expect(readCredentials(file).LATCHKEY_ORGANIZATION_ID).toMatch(/^org_/);
  expect(statSync(file).mode & 0o777).toBe(0o600);
});

test("the start log names the version, the database, the limiter, the route table and the URLs", async () => {
  const dir = tempDir();
  const database = join(dir, "latchkey.db");
  const server = await startServer(
    {
      LATCHKEY_DATABASE_URL: `sqlite:${database}`,
      LATCHKEY_BOOTSTRAP: "off",
      LATCHKEY_LOG_LEVEL: "info",
      LATCHKEY_ROUTES: join(root, "examples/routes.json"),
    },
    await freePort(),
  );
  const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string })
    .version;
  await vi.waitFor(() => expect(server.stdout()).toContain("latchkey started"));
  // The first line of the log, before Fastify's own listen line (which is not written at all).
  const line = server.stdout().split("\n")[0];
  expect(server.stdout()).not.toContain("Server listening");
  const started = JSON.parse(line ?? "{}") as Record<string, unknown>;
  expect(started.msg).toBe("latchkey started");
  const routes = JSON.parse(readFileSync(join(root, "examples/routes.json"), "utf8")) as unknown[];
  expect(started).toMatchObject({
    version,
    database: `SQLite ${database}`,
    limiter: "memory (this node only)",
    route_table: { file: join(root, "examples/routes.json"), routes: routes.length },
    urls: {
      console: `${server.baseUrl}/console`,
      api: `${server.baseUrl}/v1`,
      docs: `${server.baseUrl}/docs`,
      mcp: `${server.baseUrl}/mcp`,
    },
  });
});

test("a Redis that does not answer at start: the start line says so, and the warning follows it", async () => {
  const nobody = await freePort();
  const server = await startServer(
    {
      LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
      LATCHKEY_BOOTSTRAP: "off",
      LATCHKEY_LOG_LEVEL: "info",
      LATCHKEY_REDIS_URL: `redis://:hunter2@127.0.0.1:${nobody}`,
    },
    await freePort(),
  );
  await vi.waitFor(() => expect(server.stdout()).toContain("Redis unreachable at start"));
  const lines = server
    .stdout()
    .trim()
    .split("\n")
    .map((text) => JSON.parse(text) as Record<string, unknown>);
  expect(lines[0]).toMatchObject({
    msg: "latchkey started",
    limiter: `Redis redis://127.0.0.1:${nobody} unreachable: counting on this node alone until it answers`,
  });
  const warning = lines.findIndex((entry) => String(entry.msg).includes("Redis unreachable at start"));
  expect(warning).toBeGreaterThan(0);
  expect(server.stdout()).not.toContain("hunter2");
});

test("operator commands refuse to create a SQLite database that does not exist, and name the one they opened", async () => {
  const dir = tempDir();
  const env = {
    LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "data", "latchkey.db")}`,
    LATCHKEY_DATABASE_CREATE: "",
  };
  const refused = await latchkeyStatus(["org", "list"], env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`No database at ${join(dir, "data", "latchkey.db")}`);
  expect(refused.stderr).toContain("--create");
  expect(existsSync(join(dir, "data"))).toBe(false);

  const created = await latchkeyStatus(["org", "create", "--name", "acme", "--create"], env);
  expect(created.code).toBe(0);
  const missing = await latchkeyStatus(["org", "limits", "--org", "org_nope"], env);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(
    `No organization org_nope. (database: SQLite ${join(dir, "data", "latchkey.db")})`,
  );
});

test("organization names are unique, ignoring case, and org list shows them", async () => {
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}` };
  expect((await latchkeyStatus(["org", "create", "--name", "Acme"], env)).code).toBe(0);
  const duplicate = await latchkeyStatus(["org", "create", "--name", "acme"], env);
  expect(duplicate.code).toBe(1);
  expect(duplicate.stderr).toContain("An organization named 'acme' already exists.");
  const listed = await latchkeyStatus(["org", "list", "--json"], env);
  const organizations = JSON.parse(listed.stdout) as { name: string; key_count: number }[];
  expect(organizations.map((org) => [org.name, org.key_count])).toEqual([["Acme", 1]]);
  expect((await latchkeyStatus(["org", "list"], env)).stdout).toMatch(/^ID +NAME +KEYS +CREATED\n/);
});

test("every command exits 2 on a usage mistake, with one line and the exit-status table in --help", async () => {
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}` };
  for (const args of [
    ["bogus"],
    ["keys", "bogus"],
    ["org", "bogus"],
    ["org", "limits"],
    ["proxies", "bogus"],
  ]) {
    const result = await latchkeyStatus(args, env);
    expect({ args, code: result.code }).toEqual({ args, code: 2 });
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  }
  for (const args of [["--help"], ["org", "--help"], ["keys", "list", "--help"]]) {
    const help = await latchkeyStatus(args, env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Exit status (every command):");
    expect(help.stdout).toContain("3  credentials");
  }
});

test("CLI messages name flags and arguments, not wire parameters or regular expressions", async () => {
  const connection = ["--url", "http://127.0.0.1:9", "--api-id", "lkid_x", "--api-key", "lksk_x"];
  const [apiId, pageSize, wrongFamily] = await Promise.all([
    latchkeyStatus(["keys", "get", "lkid_88hBywxUJK12FosEYO3pnC", ...connection], {}),
    latchkeyStatus(["keys", "list", "--page-size", "0", ...connection], {}),
    latchkeyStatus(["proxies", "get", "key_H6xKQwLZjXNPML9k6X432u", ...connection], {}),
  ]);
  expect(apiId.code).toBe(2);
  expect(apiId.stderr).toContain(
    "That is an api_id (lkid_...), the Basic-auth user name; give the key's id (key_...)",
  );
  expect(pageSize.code).toBe(2);
  expect(pageSize.stderr).toContain("--page-size");
  expect(pageSize.stderr).toContain("from 1 to 100");
  expect(pageSize.stderr).not.toContain("/query/count");
  expect(wrongFamily.code).toBe(2);
  expect(wrongFamily.stderr).toContain("Expected the proxy's id (prx_...)");
}, 60_000);

/** The process ids below `pid`, found with ps (children first seen while the server runs). */
function descendants(pid: number): number[] {
  const table = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((row) => row.trim().split(/\s+/).map(Number) as [number, number]);
  const below = table.filter(([, parent]) => parent === pid).map(([child]) => child);
  return below.flatMap((child) => [child, ...descendants(child)]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("SIGTERM to `npm start` stops the server too: no process is left behind", async () => {
  const port = await freePort();
  const npm: ChildProcess = spawn("npm", ["start"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
      LATCHKEY_BOOTSTRAP: "off",
      LATCHKEY_LOG_LEVEL: "warn",
    },
    stdio: "ignore",
  });
  const pid = npm.pid ?? 0;
  onTestFinished(() => {
    for (const child of descendants(pid)) if (alive(child)) process.kill(child, "SIGKILL");
    if (alive(pid)) process.kill(pid, "SIGKILL");
  });
  await vi.waitFor(async () => expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200), {
    timeout: 60_000,
    interval: 100,
  });
  const below = descendants(pid);
  expect(below.length).toBeGreaterThan(0);
  const exited = once(npm, "exit");
  npm.kill("SIGTERM");
  await exited;
  await vi.waitFor(() => expect(below.filter(alive)).toEqual([]), { timeout: 15_000 });
});

describeWithServices(["postgres"], "first start over PostgreSQL", (services) => {
  test("PostgreSQL without LATCHKEY_REDIS_URL: one warning at start names the variable and what it brings", async () => {
    const schema = await createPostgresSchema(services.postgres);
    onTestFinished(schema.drop);
    const server = await startServer(
      { LATCHKEY_DATABASE_URL: schema.url, LATCHKEY_BOOTSTRAP: "off", LATCHKEY_LOG_LEVEL: "info" },
      await freePort(),
    );
    await vi.waitFor(() => expect(server.stdout()).toContain("LATCHKEY_REDIS_URL"));
    const lines = server
      .stdout()
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(lines[0]?.msg).toBe("latchkey started");
    const advice = lines.filter((entry) => entry.setting === "LATCHKEY_REDIS_URL");
    expect(advice).toHaveLength(1);
    expect(advice[0]).toMatchObject({ level: 40, msg: expect.stringContaining("one allowance per node") });
  });

  test("an empty PostgreSQL database needs LATCHKEY_BOOTSTRAP_FILE: the start is refused, saying so", async () => {
    const schema = await createPostgresSchema(services.postgres);
    onTestFinished(schema.drop);
    const start = promisify(execFile)(process.execPath, [MAIN], {
      env: { ...process.env, PORT: String(await freePort()), LATCHKEY_DATABASE_URL: schema.url },
    });
    await expect(start).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("LATCHKEY_BOOTSTRAP_FILE is required") as unknown,
    });
  });
});
