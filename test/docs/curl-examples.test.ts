import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { startCaddy } from "../helpers/gateway.js";
import { CLI, startServer, tempDir } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";
import { killOnExit } from "../helpers/kill-on-exit.js";
import { waitUntilStarted } from "../helpers/start-deadline.js";
import { describeWithServices } from "../helpers/services.js";
import { type CurlExample, curlExamples } from "./markdown-examples.js";

const root = new URL("../../", import.meta.url).pathname;
const wrapper = new URL("./curl-wrapper.sh", import.meta.url).pathname;
/** The README and docs/several-nodes.md are recipes, run whole and in order by recipes.test.ts. */
const RECIPES = new Set(["README.md", "docs/several-nodes.md"]);
const documents = readdirSync(join(root, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`)
  .filter((file) => !RECIPES.has(file));

/** Where a file's examples run: latchkey, and for the gateway examples ($GW) Caddy in front of it. */
interface Target {
  dir: string;
  env: Record<string, string>;
}

async function startLatchkey(): Promise<Target & { token: string }> {
  const dir = tempDir();
  // Where the README's default puts it, relative to the folder the examples run in (data/latchkey.db).
  const database = `sqlite:${join(dir, "data", "latchkey.db")}`;
  const server = await startServer(
    { LATCHKEY_DATABASE_URL: database, LATCHKEY_ROUTES: join(root, "examples/routes.json") },
    await freePort(),
  );
  // Operator commands in an example (`latchkey org plan ...`) reach the same database, as beside a server.
  mkdirSync(join(dir, "bin"));
  writeFileSync(
    join(dir, "bin/latchkey"),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
    {
      mode: 0o755,
    },
  );
  const printed = server.stderr();
  const token = field(printed, "service token");
  const env = {
    PATH: `${join(dir, "bin")}:${process.env.PATH ?? ""}`,
    LATCHKEY_DATABASE_URL: database,
    LK: server.baseUrl,
    ORG: field(printed, "organization"),
    AUTH: `${field(printed, "api_id")}:${field(printed, "api_key")}`,
    ST: token,
  };
  return { dir, env, token };
}

/**
 * Runs a file's examples in order in one shell, so later blocks use what earlier ones stored. Not with
 * spawnSync: the gateway's echo upstream runs in this process and must keep answering.
 */
async function runExamples(file: string, examples: CurlExample[], { dir, env }: Target): Promise<void> {
  const log = join(dir, "curl.log");
  const script = [
    "set -euo pipefail",
    `source ${JSON.stringify(wrapper)}`,
    ...examples.map((example) =>
      [`# ${file}:${example.line}`, `export DOCS_EXPECT=${example.expect}`, example.script].join("\n"),
    ),
  ].join("\n");
  writeFileSync(join(dir, "examples.sh"), script);
  const run = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
    execFile(
      "bash",
      [join(dir, "examples.sh")],
      { cwd: dir, encoding: "utf8", timeout: 60_000, env: { ...process.env, ...env, DOCS_CURL_LOG: log } },
      (error, _stdout, stderr) =>
        resolve({ status: error ? ((error.code as number | null) ?? 1) : 0, stderr }),
    );
  });
  const calls = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
  expect(run.status, `${file}: ${run.stderr}\n${calls.join("\n")}`).toBe(0);
  expect(calls.length).toBeGreaterThanOrEqual(examples.filter((example) => example.callsCurl).length);
}

const throughGateway = (examples: CurlExample[]) => examples.some((e) => e.script.includes("$GW"));

/**
 * Every curl of docs/ (but the recipes, recipes.test.ts) runs against a live server, so the documentation cannot rot: each
 * file against a fresh server of its own, with the owner key as $AUTH, the service token as $ST, the
 * organization as $ORG, the example route table, and `latchkey` on PATH for operator commands. A block answers 2xx unless it says otherwise (```sh expect=403).
 */
describe("documentation examples", () => {
  test("the docs have runnable curl examples", () => {
    const total = documents.reduce((sum, file) => sum + curlExamples(read(file)).length, 0);
    expect(total).toBeGreaterThan(10);
  });

  for (const file of documents) {
    const examples = curlExamples(read(file));
    if (examples.length === 0 || throughGateway(examples)) continue;
    test(`every curl example of ${file} works as written`, async () => {
      await runExamples(file, examples, await startLatchkey());
    });
  }
});

/** The gateway examples ($GW) run through a real Caddy with examples/Caddyfile, as the docs say. */
describeWithServices(["caddy"], "documentation examples through a gateway", ({ caddy }) => {
  for (const file of documents) {
    const examples = curlExamples(read(file));
    if (!throughGateway(examples)) continue;
    test(`every curl example of ${file} works as written`, async () => {
      const latchkey = await startLatchkey();
      // The docs' own stand-in for the platform service: what a reader starts first.
      const upstream = await startExampleUpstream();
      const gateway = await startCaddy(
        caddy,
        join(root, "examples/Caddyfile"),
        {
          LATCHKEY_ADDRESS: latchkey.env.LK?.replace("http://", "") ?? "",
          UPSTREAM_ADDRESS: upstream.address,
          LATCHKEY_SERVICE_TOKEN: latchkey.token,
        },
        join(latchkey.dir, "caddy"),
      );
      onTestFinished(() => gateway.stop());
      await runExamples(file, examples, { ...latchkey, env: { ...latchkey.env, GW: gateway.baseUrl } });
    }, 60_000);
  }
});

/** `node examples/upstream.mjs` on a free port, as docs/gateways.md has the reader start it. */
async function startExampleUpstream(): Promise<{ address: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, "examples/upstream.mjs")], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  killOnExit(child);
  onTestFinished(() => {
    child.kill("SIGTERM");
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitUntilStarted({
    what: "examples/upstream.mjs",
    ready: () => output.includes("upstream stand-in on"),
    failed: () => (child.exitCode === null ? undefined : `exited (${child.exitCode})`),
    output: () => output,
    baseMs: 10_000,
  });
  return { address: `127.0.0.1:${port}` };
}

function read(file: string): string {
  return readFileSync(join(root, file), "utf8");
}

/** A value of the first start's printout, e.g. `api_id:        lkid_...`. */
function field(printed: string, name: string): string {
  const value = new RegExp(`${name}:\\s+(\\S+)`).exec(printed)?.[1];
  if (!value) throw new Error(`the first start printed no ${name}: ${printed}`);
  return value;
}
