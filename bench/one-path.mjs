// The goals of latchkey's hot routes, in one run: the key read and authorize without and with a credit,
// on SQLite and on PostgreSQL + Redis, each against bare Fastify measured in the same interleaved
// rounds, at the default log level `info` (with the access log) and at `warn`. Goals are held to the
// bare route with the same access line: a GET (servers/bare-logged.mjs) for the read, a POST parsing
// the same JSON body (servers/bare-post-logged.mjs) for authorize; the ratio to the bare GET without a
// logger (servers/bare.mjs) is shown beside them.
// Every server runs in its own process; autocannon, 10 connections. CPU per request is the server
// process's, with its user-space part (JavaScript, V8, Node) apart from the kernel's. See bench/README.md.
//   npm run build && node bench/one-path.mjs [--duration 10] [--rounds 3] [--warmup 3]
//     [--levels info,warn] [--compare <other dist>]... [--no-postgres] [--floor]
// --floor adds servers/floor.mjs: the least work of the key read and of authorize (with and without a
// credit) on bare Fastify, with no latchkey code.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { measureInterleaved } from "./lib/load.mjs";
import { markdownTable } from "./lib/report.mjs";
import { startServer } from "./lib/server-process.mjs";
import { median, perRoundRatios } from "./lib/stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..");
const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "3" },
    connections: { type: "string", default: "10" },
    levels: { type: "string", default: "info,warn" },
    dist: { type: "string", default: join(repo, "dist") },
    compare: { type: "string", multiple: true, default: [] },
    "no-postgres": { type: "boolean", default: false },
    floor: { type: "boolean", default: false },
  },
});
const options = {
  duration: Number(values.duration),
  rounds: Number(values.rounds),
  warmup: Number(values.warmup),
};
const load = { connections: Number(values.connections), pipelining: 1 };
const levels = values.levels.split(",").filter(Boolean);
const log = (line) => process.stderr.write(`[bench] ${line}\n`);

/**
 * Each goal: the route measured, the server that has it, the baseline it is held to (the bare GET or
 * the bare POST parsing the same JSON body, each with the same access line), and the ratio to that
 * baseline it must reach (null: measured, no goal).
 */
const GOALS = [
  { route: "latchkey", server: "sqlite", name: "key read", baseline: "get", goal: 0.85 },
  { route: "authorize", server: "sqlite", name: "authorize", baseline: "post", goal: 0.85 },
  { route: "authorize+credit", server: "sqlite", name: "authorize + 1 credit", baseline: "post", goal: null },
  {
    route: "latchkey-pg-redis",
    server: "postgres",
    name: "key read, PostgreSQL + Redis",
    baseline: "get",
    goal: 0.55,
  },
  {
    route: "authorize-pg-redis",
    server: "postgres",
    name: "authorize, PostgreSQL + Redis",
    baseline: "post",
    goal: 0.55,
  },
  {
    route: "authorize+credit-pg-redis",
    server: "postgres",
    name: "authorize + 1 credit, PostgreSQL + Redis",
    baseline: "post",
    goal: null,
  },
].filter((goal) => !(values["no-postgres"] && goal.server === "postgres"));

const SERVER_SCRIPTS = {
  sqlite: join(here, "servers", "latchkey.mjs"),
  postgres: join(here, "scale-out-server.mjs"),
};

const builds = [{ label: "", dist: resolve(values.dist) }, ...values.compare.map(compareBuild)];
for (const { dist } of builds) {
  if (!existsSync(join(dist, "app.js"))) throw new Error(`${dist}/app.js is missing: build it first`);
}

const servers = [];
const budgetSeconds = 120 + 60 * (options.warmup + options.rounds * (options.duration + 2));
const watchdog = setTimeout(() => {
  log(`run exceeded its ${budgetSeconds} s budget; stopping`);
  for (const server of servers) server.kill();
  process.exit(2);
}, budgetSeconds * 1000);

try {
  const bare = await startServer(join(here, "servers", "bare.mjs"));
  const bareLogged = await startServer(join(here, "servers", "bare-logged.mjs"));
  const barePostLogged = await startServer(join(here, "servers", "bare-post-logged.mjs"));
  servers.push(bare, bareLogged, barePostLogged);
  const targets = [
    { name: "bare", target: bare.targets.bare, server: bare },
    { name: "bare+log", target: bareLogged.targets["bare+log"], server: bareLogged },
    { name: "bare-post+log", target: barePostLogged.targets["bare-post+log"], server: barePostLogged },
  ];
  // The compared builds at the default level only: an A/B of a change as users run it.
  const variants = builds.flatMap((build, i) =>
    (i === 0 ? levels : ["info"]).map((level) => ({ ...build, level })),
  );
  for (const variant of variants) {
    for (const kind of new Set(GOALS.map((goal) => goal.server))) {
      const server = await startServer(SERVER_SCRIPTS[kind], {
        env: { BENCH_DIST: variant.dist, BENCH_LOG_LEVEL: variant.level, BENCH_BREAKDOWN: "0" },
      });
      servers.push(server);
      for (const goal of GOALS.filter((g) => g.server === kind)) {
        targets.push({
          name: `${goal.route}@${variant.level}${variant.label}`,
          target: server.targets[goal.route],
          server,
          goal,
          variant,
        });
      }
    }
  }
  if (values.floor) {
    const shared = !values["no-postgres"];
    const floor = await startServer(join(here, "servers", "floor.mjs"), {
      env: shared ? { BENCH_REDIS_URL: process.env.SCALE_REDIS_URL ?? "redis://127.0.0.1:6379" } : {},
    });
    servers.push(floor);
    const floors = [
      { route: "floor", name: "floor: the read's least work, no latchkey code", baseline: "get", goal: null },
      { route: "floor-authorize", name: "floor of authorize", baseline: "post", goal: null },
      {
        route: "floor-authorize+credit",
        name: "floor of authorize + 1 credit (counted in memory)",
        baseline: "post",
        goal: null,
      },
      ...(shared
        ? [{ route: "floor+redis", name: "floor with a limit shared in Redis", baseline: "get", goal: null }]
        : []),
    ];
    for (const goal of floors) {
      targets.push({
        name: goal.route,
        target: floor.targets[goal.route],
        server: floor,
        goal,
        variant: { level: "info", label: "" },
      });
    }
  }
  await measureInterleaved(targets, { options, load, log });
  for (const server of servers) await server.stop();

  const [baseline, loggedBaseline, loggedPostBaseline] = targets;
  const results = {
    date: new Date().toISOString(),
    command: `node bench/one-path.mjs ${process.argv.slice(2).join(" ")}`.trim(),
    machine: {
      node: process.version,
      cpuModel: cpus()[0]?.model.trim() ?? "unknown",
      cpuCount: cpus().length,
      loadAverageAtEnd: loadavg(),
    },
    options: { ...options, ...load, levels },
    bare: { rounds: baseline.rounds.map((round) => round.requestsPerSecond) },
    bareLogged: {
      rounds: loggedBaseline.rounds.map((round) => round.requestsPerSecond),
      ratio: median(perRoundRatios(loggedBaseline.rounds, baseline.rounds)),
    },
    barePostLogged: {
      rounds: loggedPostBaseline.rounds.map((round) => round.requestsPerSecond),
      ratio: median(perRoundRatios(loggedPostBaseline.rounds, baseline.rounds)),
    },
    targets: targets.slice(3).map(({ name, goal, variant, rounds }) => {
      const perRound = perRoundRatios(rounds, baseline.rounds);
      const ownBaseline = goal.baseline === "post" ? loggedPostBaseline : loggedBaseline;
      const overLogged = perRoundRatios(rounds, ownBaseline.rounds);
      return {
        name,
        what: goal.name,
        level: variant.level,
        build: variant.label ? variant.dist : "dist",
        goal: goal.goal,
        baseline: goal.baseline === "post" ? "bare-post+log" : "bare+log",
        requestsPerSecond: rounds.map((round) => round.requestsPerSecond),
        serverCpuUsPerRequest: median(rounds.map((round) => round.serverCpuUsPerRequest)),
        serverUserUsPerRequest: median(rounds.map((round) => round.serverUserUsPerRequest)),
        perRound,
        ratio: median(perRound),
        perRoundToLogged: overLogged,
        ratioToLogged: median(overLogged),
      };
    }),
  };
  process.stdout.write(`${render(results)}\n`);
  mkdirSync(join(here, "results"), { recursive: true });
  writeFileSync(join(here, "results", "one-path-latest.json"), `${JSON.stringify(results, null, 2)}\n`);
  log("wrote bench/results/one-path-latest.json");
} catch (error) {
  for (const server of servers) server.kill();
  throw error;
} finally {
  clearTimeout(watchdog);
}

/** `--compare path/to/dist`: another build, reported under its folder's name. */
function compareBuild(dist) {
  const absolute = resolve(dist);
  const name = basename(absolute) === "dist" ? basename(dirname(absolute)) : basename(absolute);
  return { label: ` (${name})`, dist: absolute };
}

function render(results) {
  const rps = (value) => Math.round(value).toLocaleString("en-US");
  const ratio = (value) => value.toFixed(2);
  const rows = results.targets.map((target) => [
    target.what,
    `${target.level}${target.build === "dist" ? "" : ` ${basename(dirname(target.build))}`}`,
    ratio(target.ratio),
    target.baseline,
    `${ratio(target.ratioToLogged)} (${target.perRoundToLogged.map(ratio).join(", ")})`,
    target.goal === null ? "" : `>= ${target.goal}`,
    // A round where latchkey outran its baseline measured the machine's load, not latchkey.
    target.perRoundToLogged.some((value) => value > 1)
      ? "noise"
      : target.goal === null
        ? ""
        : target.ratioToLogged >= target.goal
          ? "met"
          : "NOT met",
    target.requestsPerSecond.map(rps).join(", "),
    target.serverCpuUsPerRequest === null ? "n/a" : target.serverCpuUsPerRequest.toFixed(0),
    target.serverUserUsPerRequest === null ? "n/a" : target.serverUserUsPerRequest.toFixed(0),
  ]);
  const table = markdownTable(
    [
      "route",
      "log level",
      "to bare GET",
      "baseline",
      "to baseline: median (rounds)",
      "goal",
      "",
      "req/s per round",
      "CPU µs/req",
      "of it user",
    ],
    [false, false, true, false, true, false, false, true, true, true],
    rows,
  );
  return [
    `bare Fastify GET, req/s per round: ${results.bare.rounds.map(rps).join(", ")}`,
    `bare Fastify GET with the access log (bare+log), req/s per round: ` +
      `${results.bareLogged.rounds.map(rps).join(", ")}; ${ratio(results.bareLogged.ratio)} of bare`,
    `bare Fastify POST parsing authorize's JSON body, with the access log (bare-post+log), req/s per round: ` +
      `${results.barePostLogged.rounds.map(rps).join(", ")}; ${ratio(results.barePostLogged.ratio)} of bare`,
    "",
    table,
    "",
    `${results.command}; ${results.options.rounds} interleaved rounds of ${results.options.duration} s, ` +
      `${results.options.connections} connections; Node ${results.machine.node}, ` +
      `${results.machine.cpuCount} x ${results.machine.cpuModel}; load average at the end ` +
      `${results.machine.loadAverageAtEnd.map((value) => value.toFixed(1)).join(" ")}.`,
  ].join("\n");
}
