// How long a request waits when the node's Redis is gone: one `node dist/main.js` (SQLite, a private
// redis-server as its rate limiter) answers GET /v1/api-keys one request at a time with Redis up, then
// with Redis killed (a burst at once, then one at a time). The promise is "about a second" at worst:
// a node waits at most its Redis command timeout (400 ms) before counting on its own, and only the
// requests that were already waiting when Redis went away pay it. The test suite checks the behaviour
// (no 5xx, every answer while Redis is still down: test/multinode/scale-out.test.ts); this measures it.
//   node bench/redis-outage.mjs [--requests 50] [--burst 30]      (run `npm run build` first)
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { freePort } from "./lib/free-port.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.BENCH_DIST ?? join(here, "..", "dist"));
if (!existsSync(join(dist, "main.js")))
  throw new Error(`${dist}/main.js is missing: run \`npm run build\` first.`);
const { values } = parseArgs({
  options: { requests: { type: "string", default: "50" }, burst: { type: "string", default: "30" } },
});
const requests = Number(values.requests);
const burst = Number(values.burst);
const log = (line) => process.stderr.write(`[redis-outage] ${line}\n`);

/** Spawns `command` and resolves once its output includes `readyText`. */
async function startUntil(command, args, env, readyText) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await new Promise((done, fail) => {
    const collect = (chunk) => {
      output += chunk;
      if (output.includes(readyText)) done();
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("exit", (code) => fail(new Error(`${command} exited with ${code}:\n${output}`)));
  });
  return child;
}

async function timed(url, headers) {
  const started = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

function summary(name, replies) {
  const ms = replies.map((r) => r.ms).sort((a, b) => a - b);
  const at = (q) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))];
  return {
    name,
    requests: replies.length,
    "5xx": replies.filter((r) => r.status >= 500).length,
    medianMs: Number(at(0.5).toFixed(1)),
    p99Ms: Number(at(0.99).toFixed(1)),
    maxMs: Number(ms[ms.length - 1].toFixed(1)),
  };
}

const dir = mkdtempSync(join(tmpdir(), "latchkey-bench-outage-"));
const children = [];
try {
  const redisPort = await freePort();
  const redis = await startUntil(
    "redis-server",
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {},
    "Ready to accept connections",
  );
  children.push(redis);
  const env = {
    LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "latchkey.db")}`,
    // `org create` makes the database the server then runs on.
    LATCHKEY_DATABASE_CREATE: "on",
    LATCHKEY_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    LATCHKEY_LOG_LEVEL: "warn",
  };
  const cli = (args) =>
    promisify(execFile)(process.execPath, [join(dist, "cli/bin.js"), ...args], {
      env: { ...process.env, ...env },
    });
  const created = JSON.parse((await cli(["org", "create", "--name", "bench", "--json"])).stdout);
  await cli([
    "org",
    "limits",
    "--org",
    created.organization.id,
    "--group",
    "api-key:read",
    "--quota",
    "1000000",
  ]);
  const port = await freePort();
  const node = await startUntil(
    process.execPath,
    [join(dist, "main.js")],
    { ...env, PORT: String(port), HOST: "127.0.0.1", LATCHKEY_LOG_LEVEL: "info" },
    "Server listening",
  );
  children.push(node);
  const url = `http://127.0.0.1:${port}/v1/api-keys`;
  const secret = Buffer.from(`${created.key.api_id}:${created.key.api_key}`).toString("base64");
  const headers = { authorization: `Basic ${secret}` };

  for (let i = 0; i < 20; i++) await timed(url, headers); // warm-up
  const up = [];
  for (let i = 0; i < requests; i++) up.push(await timed(url, headers));

  log("killing redis-server");
  redis.kill("SIGKILL");
  await once(redis, "exit");
  const atOnce = await Promise.all(Array.from({ length: burst }, () => timed(url, headers)));
  const after = [];
  for (let i = 0; i < requests; i++) after.push(await timed(url, headers));
  const ready = await (await fetch(`http://127.0.0.1:${port}/readyz`)).json();

  const [load] = loadavg();
  const figures = {
    loadPerCore: Number((load / availableParallelism()).toFixed(2)),
    rateLimiterAfter: ready.rate_limiter,
    results: [
      summary("Redis up, one at a time", up),
      summary(`Redis just killed, ${burst} at once`, atOnce),
      summary("Redis down, one at a time", after),
    ],
  };
  console.table(figures.results);
  console.log(JSON.stringify(figures));
} finally {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
}
