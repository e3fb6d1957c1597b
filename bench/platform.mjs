// The platform benchmark: POST /v1/authorize (images:create, with 1 credit and without) against a bare
// Fastify POST route, and forward-auth through a real Caddy (examples/Caddyfile) against the same Caddy
// build proxying the upstream directly; every process on its own, interleaved rounds, medians, ratios
// within the run. See bench/README.md, "Platform side".
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startCaddy } from "./lib/caddy.mjs";
import { measureInterleaved } from "./lib/load.mjs";
import { compareLabel, readOptions } from "./lib/options.mjs";
import { markdownTable } from "./lib/report.mjs";
import { startServer } from "./lib/server-process.mjs";
import { perRoundRatios, summarize } from "./lib/stats.mjs";
import { summarizeProfile } from "./profile-summary.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..");
const options = readOptions();
const dist = resolve(options.dist ?? join(repo, "dist"));
if (!existsSync(join(dist, "app.js")))
  throw new Error(`${dist}/app.js is missing: run \`npm run build\` first.`);
const log = (line) => process.stderr.write(`[bench] ${line}\n`);
const profileDir = join(here, "results", "profiles");
const profileFile = join(
  profileDir,
  `platform-latchkey-${new Date().toISOString().replace(/[:.]/g, "-")}.cpuprofile`,
);

const DESCRIPTIONS = {
  "bare-post": "bare Fastify 5 POST route: JSON body parsed, constant decision-shaped answer",
  "authorize+credit":
    "`POST /v1/authorize`, `images:create`, 1 credit (SQLite: key read, credit transaction)",
  authorize: "`POST /v1/authorize`, `images:create`, no credits (SQLite: key read)",
  "caddy-direct": "Caddy 2.6 `reverse_proxy` to the upstream (node:http), no auth",
  "caddy+forward-auth":
    "`examples/Caddyfile`: forward-auth `GET /v1/images/*` (images:read), then the upstream",
  "caddy+forward-auth+credit":
    "`examples/Caddyfile`: forward-auth `POST /v1/image` (1 credit), then the upstream",
};
const BASELINE = {
  "authorize+credit": "bare-post",
  authorize: "bare-post",
  "caddy+forward-auth": "caddy-direct",
  "caddy+forward-auth+credit": "caddy-direct",
};

/** A target's description and baseline; `authorize@old` (--compare) is `authorize` of another build. */
const routeOf = (name) => name.split("@")[0];
const baselineOf = (name) => BASELINE[routeOf(name)];

const started = [];
const targetCount = Object.keys(DESCRIPTIONS).length + 2 * options.compare.length;
const budgetSeconds = 90 + 2 * targetCount * (options.warmup + options.rounds * (options.duration + 1));
const watchdog = setTimeout(() => {
  log(`run exceeded its ${Math.round(budgetSeconds)} s budget; stopping`);
  for (const handle of started) handle.kill();
  process.exit(2);
}, budgetSeconds * 1000);

try {
  if (options.cpuProf) mkdirSync(profileDir, { recursive: true });
  const start = async (handle) => {
    started.push(await handle);
    return started.at(-1);
  };
  const bare = await start(startServer(join(here, "servers", "bare-post.mjs")));
  const latchkey = await start(
    startServer(join(here, "servers", "platform.mjs"), {
      nodeArgs: options.cpuProf
        ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${basename(profileFile)}`]
        : [],
      env: { BENCH_DIST: dist },
    }),
  );
  const upstream = await start(startServer(join(here, "servers", "upstream.mjs")));
  const directFile = join(mkdtempSync(join(tmpdir(), "latchkey-bench-")), "Caddyfile");
  writeFileSync(
    directFile,
    "{\n\tadmin {$CADDY_ADMIN}\n}\n\n{$SITE_ADDRESS} {\n\treverse_proxy {$UPSTREAM_ADDRESS}\n}\n",
  );
  const upstreamAddress = `127.0.0.1:${upstream.port}`;
  const direct = await start(startCaddy(directFile, { UPSTREAM_ADDRESS: upstreamAddress }));
  const gateway = await start(
    startCaddy(join(repo, "examples", "Caddyfile"), {
      UPSTREAM_ADDRESS: upstreamAddress,
      LATCHKEY_ADDRESS: `127.0.0.1:${latchkey.port}`,
      LATCHKEY_SERVICE_TOKEN: latchkey.ready.serviceToken,
    }),
  );

  // A target's "server" is every process that serves it, so its CPU per request covers the chain.
  const chain = (port, ...processes) => ({
    port,
    cpuSeconds: () => {
      const each = processes.map((p) => p.cpuSeconds());
      return each.includes(null) ? null : each.reduce((a, b) => a + b, 0);
    },
  });
  const authorization = latchkey.ready.authorization;
  const targets = [
    { name: "bare-post", server: bare, target: bare.targets["bare-post"] },
    { name: "authorize+credit", server: latchkey, target: latchkey.targets["authorize+credit"] },
    { name: "authorize", server: latchkey, target: latchkey.targets.authorize },
    {
      name: "caddy-direct",
      server: chain(direct.port, direct, upstream),
      target: { path: "/v1/images/img_1" },
    },
    {
      name: "caddy+forward-auth",
      server: chain(gateway.port, gateway, latchkey, upstream),
      target: { path: "/v1/images/img_1", headers: { authorization } },
    },
    {
      name: "caddy+forward-auth+credit",
      server: chain(gateway.port, gateway, latchkey, upstream),
      target: { path: "/v1/image", method: "POST", headers: { authorization }, expectBody: "queued" },
    },
  ];
  // --compare <dir>: authorize and authorize+credit of another build, against the same bare route.
  for (const other of options.compare) {
    const otherDist = resolve(other);
    const label = compareLabel(otherDist);
    const server = await start(
      startServer(join(here, "servers", "platform.mjs"), { env: { BENCH_DIST: otherDist } }),
    );
    for (const route of ["authorize+credit", "authorize"]) {
      targets.push({ name: `${route}@${label}`, server, target: server.targets[route] });
    }
  }
  if (options.only.length > 0) {
    const unknown = options.only.filter((name) => !DESCRIPTIONS[name]);
    if (unknown.length > 0) throw new Error(`--only: no target ${unknown.join(", ")}`);
    const keep = new Set(options.only.flatMap((name) => [name, BASELINE[name]]));
    targets.splice(
      0,
      targets.length,
      ...targets.filter((entry) => keep.has(entry.name) || keep.has(routeOf(entry.name))),
    );
  }
  const load = { connections: options.connections, pipelining: options.pipelining };
  await measureInterleaved(targets, { options, load, log });
  for (const handle of [...started].reverse()) await handle.stop();

  const byName = Object.fromEntries(targets.map((entry) => [entry.name, entry]));
  const results = {
    date: new Date().toISOString(),
    command: `node bench/platform.mjs ${process.argv.slice(2).join(" ")}`.trim(),
    machine: {
      node: process.version,
      cpuModel: cpus()[0]?.model.trim(),
      cpuCount: cpus().length,
      loadAverageAtEnd: loadavg(),
    },
    options,
    targets: Object.fromEntries(
      targets.map((entry) => {
        const baseline = baselineOf(entry.name) && byName[baselineOf(entry.name)];
        const perRound = baseline ? perRoundRatios(entry.rounds, baseline.rounds) : null;
        return [
          entry.name,
          {
            description:
              entry.name === routeOf(entry.name)
                ? DESCRIPTIONS[entry.name]
                : `${DESCRIPTIONS[routeOf(entry.name)]}, built from \`${entry.name.split("@")[1]}\``,
            baseline: baselineOf(entry.name) ?? null,
            median: summarize(entry.rounds),
            ratio: baseline
              ? summarize(entry.rounds).requestsPerSecond / summarize(baseline.rounds).requestsPerSecond
              : null,
            // CPU per request of the baseline over this target's: moves much less with other load.
            cpuCostRatio: baseline
              ? summarize(baseline.rounds).serverCpuUsPerRequest /
                summarize(entry.rounds).serverCpuUsPerRequest
              : null,
            perRoundRatios: perRound,
            rounds: entry.rounds,
          },
        ];
      }),
    ),
  };
  process.stdout.write(`${render(results)}\n`);
  if (!options.dryRun) {
    writeFileSync(join(here, "results", "platform-latest.json"), `${JSON.stringify(results, null, 2)}\n`);
    log("wrote bench/results/platform-latest.json");
  }
  if (options.cpuProf) {
    process.stdout.write(
      `\n## latchkey profile (${relative(repo, profileFile)})\n${summarizeProfile(profileFile)}\n`,
    );
  }
} catch (error) {
  for (const handle of started) handle.kill();
  throw error;
} finally {
  clearTimeout(watchdog);
}

function render({ date, command, machine, options, targets }) {
  const f = (value, digits = 0) => (value === null || value === undefined ? "n/a" : value.toFixed(digits));
  const rows = Object.entries(targets).map(([name, t]) => [
    `\`${name}\``,
    t.description,
    Math.round(t.median.requestsPerSecond).toLocaleString("en-US"),
    f(t.median.p99Ms, 2),
    t.ratio === null
      ? "(baseline)"
      : `${f(t.ratio, 2)} of \`${t.baseline}\` (${t.perRoundRatios.map((r) => f(r, 2)).join(", ")})`,
    t.cpuCostRatio === null
      ? f(t.median.serverCpuUsPerRequest)
      : `${f(t.median.serverCpuUsPerRequest)} (${f(t.cpuCostRatio, 2)})`,
    f(t.median.otherCpuCores, 2),
  ]);
  return [
    `Run ${date} · \`${command}\` · Node ${machine.node} · ${machine.cpuModel} x ${machine.cpuCount} · ` +
      `${options.connections} connections, ${options.rounds} interleaved rounds x ${options.duration} s (medians), ` +
      `${options.warmup} s warm-up · load average at end ${machine.loadAverageAtEnd.map((l) => l.toFixed(1)).join(" ")}`,
    "",
    markdownTable(
      [
        "target",
        "what it runs",
        "requests/s",
        "p99 ms",
        "ratio (per round)",
        "CPU µs/request of its processes (baseline / this)",
        "other processes (cores)",
      ],
      [false, false, true, true, false, true, true],
      rows,
    ),
  ].join("\n");
}
