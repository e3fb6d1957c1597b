// Instructions per request, counted by valgrind's callgrind: a measure that the machine's load does not
// move, for comparing routes and builds on a shared machine where requests per second swing by a
// third from one minute to the next. Each server runs alone under callgrind with counting off, takes
// `--warm` requests (V8 compiles the hot code), then counts only the next `--measured` requests
// (autocannon, 10 connections). It counts user-space instructions of the server process (JavaScript,
// V8, Node, libc), not the kernel's work, nor how fast they run (cache misses); the collections that
// happen to fall in the window make repeated runs differ by up to about 5%. See bench/README.md.
//   npm run build && node bench/instructions.mjs [--warm 20000] [--measured 3000] [--targets a,b]
//     [--dist <other dist>]
// Targets: bare, floor, floor+redis, latchkey (the key read on SQLite), latchkey-pg-redis,
// authorize-pg-redis, authorize+credit-pg-redis. --dist counts another build's latchkey (BENCH_DIST).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const here = new URL(".", import.meta.url).pathname;
const redisUrl = process.env.SCALE_REDIS_URL ?? "redis://127.0.0.1:6379";
/** Each target: the server script that has it and the environment it needs. */
const TARGETS = {
  bare: { script: "servers/bare.mjs" },
  floor: { script: "servers/floor.mjs" },
  "floor+redis": { script: "servers/floor.mjs", env: { BENCH_REDIS_URL: redisUrl } },
  latchkey: { script: "servers/latchkey.mjs", env: { BENCH_BREAKDOWN: "0" } },
  "latchkey-pg-redis": { script: "scale-out-server.mjs" },
  "authorize-pg-redis": { script: "scale-out-server.mjs" },
  "authorize+credit-pg-redis": { script: "scale-out-server.mjs" },
};

const { values } = parseArgs({
  options: {
    warm: { type: "string", default: "20000" },
    measured: { type: "string", default: "3000" },
    targets: { type: "string", default: Object.keys(TARGETS).join(",") },
    dist: { type: "string" },
  },
});
const distEnv = values.dist ? { BENCH_DIST: new URL(values.dist, `file://${process.cwd()}/`).pathname } : {};
const warm = Number(values.warm);
const measured = Number(values.measured);
const names = values.targets.split(",").filter(Boolean);
for (const name of names) if (!TARGETS[name]) throw new Error(`unknown target ${name}`);

/** Starts `script` under callgrind, counting off; resolves with the child and its ready line. */
async function startCounted(script, env, outFile) {
  const child = spawn(
    "valgrind",
    ["--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${outFile}`, process.execPath, script],
    { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, ...env } },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const ready = await new Promise((resolve, reject) => {
    child.once("error", (error) => reject(new Error(`valgrind could not start (${error.message})`)));
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} under valgrind`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("{") && JSON.parse(line).ready) resolve(JSON.parse(line));
    });
  });
  return { child, ready, exited };
}

function load(ready, target, amount) {
  return autocannon({
    url: `http://127.0.0.1:${ready.port}${target.path}`,
    method: target.method ?? "GET",
    headers: target.headers,
    body: target.body,
    connections: 10,
    amount,
    timeout: 60,
  });
}

/** The instructions counted in one run: callgrind writes a file for the dump and one at exit. */
function countedInstructions(folder) {
  return readdirSync(folder)
    .map((file) => /^totals: (\d+)/m.exec(readFileSync(join(folder, file), "utf8")))
    .reduce((sum, match) => sum + (match ? Number(match[1]) : 0), 0);
}

const folder = mkdtempSync(join(tmpdir(), "latchkey-instructions-"));
try {
  for (const name of names) {
    const { script, env = {} } = TARGETS[name];
    const runFolder = mkdtempSync(join(folder, "run-"));
    const { child, ready, exited } = await startCounted(
      join(here, script),
      { ...env, ...distEnv },
      join(runFolder, "callgrind.out.%p"),
    );
    const target = ready.targets[name];
    const control = (...args) =>
      execFileSync("callgrind_control", [...args, String(child.pid)], { stdio: "ignore" });
    await load(ready, target, warm);
    control("--zero");
    control("--instr=on");
    const result = await load(ready, target, measured);
    control("--instr=off");
    control("--dump");
    child.kill("SIGTERM");
    await exited;
    const failures = result.non2xx + result.errors + result.timeouts;
    if (failures > 0) throw new Error(`${name}: ${failures} failed requests`);
    const perRequest = countedInstructions(runFolder) / result.requests.total;
    process.stdout.write(`${name}: ${Math.round(perRequest / 1000)}k instructions per request\n`);
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
