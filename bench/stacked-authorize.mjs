// What stacked windows cost a whole decision: `POST /v1/authorize` naming a platform group of one window
// (60 s) against the same naming a group of three (1 s, 1 h, 1 day), quotas never reached so both take
// the admitted path, over HTTP through latchkey with its access log at `info`: on the default
// configuration (servers/latchkey.mjs: SQLite + the in-memory limiter) and on the deployed one
// (scale-out-server.mjs: PostgreSQL + Redis, here a private redis-server so its CPU is this run's only).
// Per request: the latchkey process's CPU, Redis' CPU (INFO cpu, user + system, over the measurement)
// and the script's own (INFO commandstats, evalsha usec_per_call), and requests per second. Rounds
// interleave the four targets (measureInterleaved, autocannon with 10 connections). Issue 33's promise
// is at most +10% for three windows; stacked-windows.mjs measures the decision and the script alone.
//   npm run build && node bench/stacked-authorize.mjs [--duration 10] [--rounds 3] [--warmup 3] [--no-postgres]
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { measureInterleaved } from "./lib/load.mjs";
import { privateRedis } from "./lib/private-redis.mjs";
import { startServer } from "./lib/server-process.mjs";
import { median } from "./lib/stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "3" },
    connections: { type: "string", default: "10" },
    "no-postgres": { type: "boolean", default: false },
  },
});
const options = {
  duration: Number(values.duration),
  rounds: Number(values.rounds),
  warmup: Number(values.warmup),
};
const load = { connections: Number(values.connections), pipelining: 1 };
const log = (line) => process.stderr.write(`[bench] ${line}\n`);
const loadAverage = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");

/** Redis' CPU seconds (user + system, all its threads) and the script's calls and µs so far. */
async function redisCounters(redis) {
  const cpu = await redis.info("cpu");
  const seconds = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(cpu)?.[1] ?? NaN);
  const stats = await redis.info("commandstats");
  const evalsha = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(stats);
  return {
    cpuSeconds: seconds("used_cpu_user") + seconds("used_cpu_sys"),
    scriptCalls: Number(evalsha?.[1] ?? 0),
    scriptMicros: Number(evalsha?.[2] ?? 0),
  };
}

const servers = [];
let redisServer = null;
let redis = null;
const budgetSeconds = 120 + 4 * (options.warmup + options.rounds * (options.duration + 3));
const watchdog = setTimeout(() => {
  log(`run exceeded its ${budgetSeconds} s budget; stopping`);
  for (const server of servers) server.kill();
  redisServer?.stop();
  process.exit(2);
}, budgetSeconds * 1000);

const started = new Date();
const loadAtStart = loadAverage();
try {
  const sqlite = await startServer(join(here, "servers", "latchkey.mjs"), { env: { BENCH_BREAKDOWN: "0" } });
  servers.push(sqlite);
  const targets = [
    {
      name: "SQLite + memory, group of one window",
      configuration: "sqlite",
      windows: 1,
      server: sqlite,
      target: sqlite.targets["authorize-group1"],
    },
    {
      name: "SQLite + memory, group of three windows",
      configuration: "sqlite",
      windows: 3,
      server: sqlite,
      target: sqlite.targets["authorize-group3"],
    },
  ];
  if (!values["no-postgres"]) {
    redisServer = await privateRedis();
    redis = new Redis(redisServer.url);
    const postgres = await startServer(join(here, "scale-out-server.mjs"), {
      env: { SCALE_REDIS_URL: redisServer.url },
    });
    servers.push(postgres);
    targets.push(
      {
        name: "PostgreSQL + Redis, group of one window",
        configuration: "postgres",
        windows: 1,
        server: postgres,
        target: postgres.targets["authorize-group1-pg-redis"],
      },
      {
        name: "PostgreSQL + Redis, group of three windows",
        configuration: "postgres",
        windows: 3,
        server: postgres,
        target: postgres.targets["authorize-group3-pg-redis"],
      },
    );
  }
  // Redis' counters around each measurement of a PostgreSQL + Redis target.
  const around = async (entry, run) => {
    if (entry.configuration !== "postgres" || !redis) return run();
    const before = await redisCounters(redis);
    const figures = await run();
    const after = await redisCounters(redis);
    const calls = after.scriptCalls - before.scriptCalls;
    return {
      ...figures,
      redisCpuUsPerRequest: ((after.cpuSeconds - before.cpuSeconds) * 1e6) / figures.requests,
      scriptUsPerCall: calls > 0 ? (after.scriptMicros - before.scriptMicros) / calls : null,
      scriptCallsPerRequest: calls / figures.requests,
    };
  };
  await measureInterleaved(targets, { options, load, log, around });

  const total = (round) => round.serverCpuUsPerRequest + (round.redisCpuUsPerRequest ?? 0);
  const list = (rounds, figure, digits = 1) =>
    rounds.map((round) => figure(round)?.toFixed(digits) ?? "-").join(", ");
  const lines = [
    `${started.toISOString()}, load average at start ${loadAtStart}, at end ${loadAverage()}`,
    "",
    "| authorize | req/s | latchkey CPU µs/req | Redis CPU µs/req | script µs/call | CPU µs/req, both |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const entry of targets) {
    const rounds = entry.rounds;
    const redisCpu = entry.configuration === "postgres";
    lines.push(
      `| ${entry.name} | ${list(rounds, (r) => r.requestsPerSecond, 0)} | ${list(rounds, (r) => r.serverCpuUsPerRequest)} | ` +
        `${redisCpu ? list(rounds, (r) => r.redisCpuUsPerRequest) : "-"} | ${redisCpu ? list(rounds, (r) => r.scriptUsPerCall) : "-"} | ` +
        `${list(rounds, total)} |`,
    );
  }
  lines.push(
    "",
    "| three windows against one, per round (median) | CPU µs/req, both | req/s |",
    "| --- | ---: | ---: |",
  );
  const summary = {};
  for (const configuration of new Set(targets.map((entry) => entry.configuration))) {
    const one = targets.find((entry) => entry.configuration === configuration && entry.windows === 1);
    const three = targets.find((entry) => entry.configuration === configuration && entry.windows === 3);
    if (!one || !three) throw new Error(`${configuration}: a target is missing`);
    const change = (figure) =>
      one.rounds.map((round, i) => ((figure(three.rounds[i]) - figure(round)) / figure(round)) * 100);
    const cpu = change(total);
    const rate = change((round) => round.requestsPerSecond);
    const percent = (xs) =>
      `${xs.map((x) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}%`).join(", ")} (${median(xs).toFixed(1)}%)`;
    lines.push(
      `| ${configuration === "sqlite" ? "SQLite + memory" : "PostgreSQL + Redis"} | ${percent(cpu)} | ${percent(rate)} |`,
    );
    summary[configuration] = { cpuChangePercent: cpu, requestsPerSecondChangePercent: rate };
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  const results = join(here, "results");
  mkdirSync(results, { recursive: true });
  writeFileSync(
    join(results, "stacked-authorize-latest.json"),
    `${JSON.stringify({ started, loadAtStart, loadAtEnd: loadAverage(), options, load, summary, targets: targets.map(({ name, rounds, probe }) => ({ name, probe, rounds })) }, null, 2)}\n`,
  );
} finally {
  clearTimeout(watchdog);
  for (const server of servers) await server.stop();
  redis?.disconnect();
  redisServer?.stop();
}
