// A V8 CPU profile of one route under load: starts a bench server under `node --cpu-prof`, sends it
// autocannon's load (10 connections) for a warm-up and then the measured seconds, stops it (the profile
// is written on exit) and summarizes the profile (profile-summary.mjs). Used for the PostgreSQL + Redis
// read and authorize, and for `floor+redis` beside them (bench/README.md, "Issue 36").
//   npm run build && node bench/profile-route.mjs --server scale-out-server.mjs --target authorize-pg-redis
//     [--seconds 8] [--warmup 3] [--dist <other dist>] [--redis] [--top 25]
// --redis gives the server BENCH_REDIS_URL (servers/floor.mjs's `floor+redis`).
import { mkdirSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { measure } from "./lib/load.mjs";
import { startServer } from "./lib/server-process.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    server: { type: "string", default: "scale-out-server.mjs" },
    target: { type: "string", default: "authorize-pg-redis" },
    seconds: { type: "string", default: "8" },
    warmup: { type: "string", default: "3" },
    dist: { type: "string", default: join(here, "..", "dist") },
    redis: { type: "boolean", default: false },
    top: { type: "string", default: "25" },
  },
});
const directory = join(here, "results", "profiles", `${values.target}-${Date.now()}`);
mkdirSync(directory, { recursive: true });
const server = await startServer(join(here, values.server), {
  nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${directory}`],
  env: {
    BENCH_DIST: resolve(values.dist),
    BENCH_BREAKDOWN: "0",
    ...(values.redis ? { BENCH_REDIS_URL: process.env.SCALE_REDIS_URL ?? "redis://127.0.0.1:6379" } : {}),
  },
});
const target = server.targets[values.target];
if (!target)
  throw new Error(`${values.server} has no target ${values.target}: ${Object.keys(server.targets)}`);
const load = { connections: 10, pipelining: 1 };
try {
  await measure(server, target, { seconds: Number(values.warmup), ...load });
  const measured = await measure(server, target, { seconds: Number(values.seconds), ...load });
  process.stderr.write(
    `[profile] ${values.target}: ${Math.round(measured.requestsPerSecond)} req/s, ` +
      `${measured.serverCpuUsPerRequest?.toFixed(0)} µs CPU per request; load ${loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}\n`,
  );
} finally {
  await server.stop();
}
const [profile] = readdirSync(directory).filter((name) => name.endsWith(".cpuprofile"));
if (!profile) throw new Error(`no profile in ${directory}`);
process.stdout.write(
  execFileSync(process.execPath, [
    join(here, "profile-summary.mjs"),
    join(directory, profile),
    "--top",
    values.top,
  ]),
);
