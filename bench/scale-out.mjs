// The scale-out benchmark: the core benchmark's authenticated read (GET /v1/api-keys/{id}) on
// PostgreSQL + Redis, against the same on SQLite + memory and against a bare Fastify route, each
// server in its own process, in interleaved rounds of one run; then the Redis limiter alone.
//   node bench/scale-out.mjs [--duration 10] [--rounds 3] [--connections 10] [--warmup 3]
//                            [--limiter-seconds 5]      (run `npm run build` first)
// Needs PostgreSQL (SCALE_POSTGRES_URL) and Redis (SCALE_REDIS_URL); the limiter alone runs on a
// private redis-server so that Redis' command counts are this benchmark's only.
import { existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { measureInterleaved } from "./lib/load.mjs";
import { privateRedis } from "./lib/private-redis.mjs";
import { startServer } from "./lib/server-process.mjs";
import { median, perRoundRatios, summarize } from "./lib/stats.mjs";
import { measureLimiters } from "./scale-out-limiter.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.BENCH_DIST ?? join(here, "..", "dist"));
if (!existsSync(join(dist, "app.js")))
  throw new Error(`${dist}/app.js is missing: run \`npm run build\` first.`);
const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    "limiter-seconds": { type: "string", default: "5" },
  },
});
const options = {
  duration: Number(values.duration),
  rounds: Number(values.rounds),
  connections: Number(values.connections),
  warmup: Number(values.warmup),
  limiterSeconds: Number(values["limiter-seconds"]),
};
for (const [name, value] of Object.entries(options)) {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
}
const log = (line) => process.stderr.write(`[scale-out] ${line}\n`);

// Every loop is bounded by counts and autocannon's duration; this bounds the whole run besides.
const servers = [];
const budgetSeconds =
  120 + 3 * (options.warmup + options.rounds * (options.duration + 1)) + 5 * options.limiterSeconds;
const watchdog = setTimeout(() => {
  log(`run exceeded its ${budgetSeconds} s budget; stopping`);
  for (const server of servers) server.kill();
  process.exit(2);
}, budgetSeconds * 1000);

const DESCRIPTIONS = {
  bare: "bare Fastify 5 route, constant document",
  latchkey: "SQLite + in-memory limiter (one node)",
  "latchkey-pg-redis": "PostgreSQL + Redis limiter (a scaled-out node)",
};

try {
  servers.push(await startServer(join(here, "servers", "bare.mjs")));
  servers.push(
    await startServer(join(here, "servers", "latchkey.mjs"), {
      env: { BENCH_DIST: dist, BENCH_BREAKDOWN: "0" },
    }),
  );
  const scaled = await startServer(join(here, "scale-out-server.mjs"), { env: { BENCH_DIST: dist } });
  servers.push(scaled);
  // Only the read this benchmark compares (servers/latchkey.mjs also offers authorize targets).
  const targets = servers.flatMap((server) =>
    Object.entries(server.targets)
      .filter(([name]) => name in DESCRIPTIONS)
      .map(([name, target]) => ({ name, target, server, rounds: [] })),
  );
  const load = { connections: options.connections, pipelining: 1 };
  await measureInterleaved(targets, {
    options,
    load,
    log,
    // Rotate the order each round so that no target always follows the same one.
    order: (all, round) => all.map((_, i) => all[(i + round) % all.length]),
    // The PostgreSQL + Redis node counts its round trips; the two counting requests are not
    // latchkey requests (0 round trips each).
    async around(entry, run) {
      if (entry.name !== "latchkey-pg-redis") return run();
      const before = await roundTripsOf(entry.server);
      const figures = await run();
      const after = await roundTripsOf(entry.server);
      figures.postgresPerRequest = (after.postgres - before.postgres) / figures.requests;
      figures.redisPerRequest = (after.redis - before.redis) / figures.requests;
      return figures;
    },
  });
  // Figures measured on the fallback would not be Redis': check the node never left Redis.
  const ready = await (await fetch(`http://127.0.0.1:${scaled.port}/readyz`)).json();
  if (ready.rate_limiter !== "ok")
    throw new Error(`the PostgreSQL + Redis node fell back during the run: ${JSON.stringify(ready)}`);
  for (const server of servers) await server.stop();

  log(`Redis limiter alone (${options.limiterSeconds} s per setting, private redis-server)`);
  const redis = await privateRedis();
  let limiters;
  try {
    limiters = await measureLimiters({ dist, redisUrl: redis.url, seconds: options.limiterSeconds });
  } finally {
    redis.stop();
  }

  const byName = Object.fromEntries(targets.map((entry) => [entry.name, entry]));
  const medianRatio = (a, b) => median(perRoundRatios(byName[a].rounds, byName[b].rounds));
  const results = {
    date: new Date().toISOString(),
    command: `node bench/scale-out.mjs ${process.argv.slice(2).join(" ")}`.trim(),
    machine: {
      node: process.version,
      cpuCount: cpus().length,
      cpuModel: cpus()[0]?.model.trim(),
      loadAverageAtEnd: loadavg(),
    },
    options,
    http: Object.fromEntries(
      targets.map((entry) => [
        entry.name,
        { description: DESCRIPTIONS[entry.name], median: summarize(entry.rounds), rounds: entry.rounds },
      ]),
    ),
    ratios: {
      "pg-redis / bare": medianRatio("latchkey-pg-redis", "bare"),
      "sqlite-memory / bare": medianRatio("latchkey", "bare"),
      "pg-redis / sqlite-memory": medianRatio("latchkey-pg-redis", "latchkey"),
    },
    limiters,
  };
  process.stdout.write(`${renderMarkdown(results)}\n\n${JSON.stringify(results, null, 2)}\n`);
} catch (error) {
  for (const server of servers) server.kill();
  throw error;
} finally {
  clearTimeout(watchdog);
}

async function roundTripsOf(server) {
  return (await fetch(`http://127.0.0.1:${server.port}/bench/round-trips`)).json();
}

function renderMarkdown({ http, ratios, limiters, options, machine }) {
  const fixed = (value, digits = 0) =>
    value === null || value === undefined ? "n/a" : value.toFixed(digits);
  const lines = [
    `HTTP: ${options.rounds} interleaved rounds of ${options.duration} s, ${options.connections} connections; ${machine.cpuCount} cores (${machine.cpuModel}), load average at end ${machine.loadAverageAtEnd.map((l) => l.toFixed(2)).join(" ")}`,
    "",
    "| target | what | req/s (median) | p50 ms | p99 ms | server µs CPU/request |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
    ...Object.entries(http).map(
      ([name, { description, median: m }]) =>
        `| \`${name}\` | ${description} | ${fixed(m.requestsPerSecond)} | ${fixed(m.p50Ms)} | ${fixed(m.p99Ms)} | ${fixed(m.serverCpuUsPerRequest)} |`,
    ),
    "",
    "Round trips per request of `latchkey-pg-redis` (counted in the node, per round):",
    `- PostgreSQL: ${http["latchkey-pg-redis"].rounds.map((r) => fixed(r.postgresPerRequest, 3)).join(", ")}`,
    `- Redis: ${http["latchkey-pg-redis"].rounds.map((r) => fixed(r.redisPerRequest, 3)).join(", ")}`,
    "",
    "Ratios (median of per-round ratios of req/s):",
    ...Object.entries(ratios).map(([name, value]) => `- ${name}: ${fixed(value, 2)}`),
    "",
    `Limiter alone: one process, one connection, ${options.limiterSeconds} s per row, admitting path (64 buckets, window 1 s)`,
    "",
    "| limiter | callers in flight | decisions/s | p50 µs | p99 µs | EVALSHA per decision | EVAL calls |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...limiters.map(
      (l) =>
        `| ${l.limiter} | ${l.callers} | ${fixed(l.decisionsPerSecond)} | ${fixed(l.p50Us)} | ${fixed(l.p99Us)} | ${l.roundTripsPerDecision === undefined ? "-" : fixed(l.roundTripsPerDecision, 3)} | ${l.evalCalls ?? "-"} |`,
    ),
  ];
  return lines.join("\n");
}
