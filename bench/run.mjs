// The core benchmark: autocannon against latchkey's authenticated, rate-limited, SQLite-backed
// GET /v1/api-keys/{id} and against a bare Fastify route, each server in its own process, measured in
// interleaved rounds so that drift on a shared machine hits both. See bench/README.md.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { measureInterleaved } from "./lib/load.mjs";
import { compareLabel, readOptions } from "./lib/options.mjs";
import { renderResults, updateReadme } from "./lib/report.mjs";
import { startServer } from "./lib/server-process.mjs";
import { median, perRoundRatios, summarize } from "./lib/stats.mjs";
import { summarizeProfile } from "./profile-summary.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..");
const GOAL = 0.6;

const DESCRIPTIONS = {
  bare: "bare Fastify 5 route, constant document (no logger, hooks or schema)",
  latchkey: "`GET /v1/api-keys/{id}`: Basic auth, permission, rate limit, SQLite read, serialization",
  "app-plain": "latchkey's Fastify instance and hooks, constant document (no auth, limit or read)",
  auth: "app-plain + authenticate (SQLite lookup by api_id, SHA-256) + permission check",
  "auth-limit": "auth + rate-limit consume (in-memory sliding log)",
  "read-only": "app-plain + findKey (SQLite) + toKeyResponse + response schema, no auth",
  authorize: "`POST /v1/authorize`: service token, Basic credentials, permission; no group, no credits",
  "authorize+credit": "`POST /v1/authorize` with 1 image credit (consumed in SQLite)",
  "better-auth": "peer: Better Auth + API-key plugin, `verifyApiKey` per request (SQLite), no rate limit",
  "better-auth+limit": "peer: the same with the plugin's per-key rate limit on",
  "basic-auth+rate-limit": "peer: @fastify/basic-auth over an api_keys table (SQLite) + @fastify/rate-limit",
};

/** Ratios worth reading, each numerator over denominator in the same run, when both were measured. */
const RATIOS = [
  ["latchkey", "bare", 0.6],
  ["authorize", "bare", 0.6],
  ["authorize+credit", "bare", 0.4],
  ["authorize", "better-auth", 2],
  ["authorize", "better-auth+limit", null],
  ["latchkey", "basic-auth+rate-limit", null],
  ["basic-auth+rate-limit", "bare", null],
];

const options = readOptions();
const dist = resolve(options.dist ?? join(repo, "dist"));
if (!existsSync(join(dist, "app.js"))) {
  throw new Error(`${join(dist, "app.js")} is missing: run \`npm run build\` first.`);
}
// Read before the run: others may commit while it lasts.
const source = sourceVersion();
const log = (line) => process.stderr.write(`[bench] ${line}\n`);
const profileDir = join(here, "results", "profiles");
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const profiles = [];
const profileArgs = (name) => {
  if (!options.cpuProf) return [];
  const file = join(profileDir, `${name.replace(/[^\w.-]/g, "_")}-${stamp}.cpuprofile`);
  profiles.push({ name, file });
  return ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${basename(file)}`];
};

// Every loop here is bounded by count (rounds, targets) and by time (autocannon's duration and request
// cap); this watchdog bounds the whole run in case a server hangs.
const servers = [];
const targetCount =
  (options.breakdown ? 8 : 4) + (options.peers ? 3 : 0) + 3 * options.compare.length + options.spinUs.length;
const budgetSeconds = 60 + 2 * targetCount * (options.warmup + options.rounds * (options.duration + 1));
const watchdog = setTimeout(() => {
  log(`run exceeded its ${Math.round(budgetSeconds)} s budget; stopping`);
  for (const server of servers) server.kill();
  process.exit(2);
}, budgetSeconds * 1000);

try {
  if (options.cpuProf) mkdirSync(profileDir, { recursive: true });
  const bareServer = await startServer(join(here, "servers", "bare.mjs"), {
    nodeArgs: profileArgs("bare"),
    env: { BENCH_SPIN_US: options.spinUs.join(",") },
  });
  servers.push(bareServer);
  const latchkeyServer = await startServer(join(here, "servers", "latchkey.mjs"), {
    nodeArgs: profileArgs("latchkey"),
    env: { BENCH_DIST: dist, BENCH_BREAKDOWN: options.breakdown ? "1" : "0" },
  });
  servers.push(latchkeyServer);

  const targets = [
    ...Object.entries(bareServer.targets).map(([name, target]) => ({ name, target, server: bareServer })),
    ...Object.entries(latchkeyServer.targets).map(([name, target]) => ({
      name,
      target,
      server: latchkeyServer,
    })),
  ];
  if (options.peers) {
    const peersServer = await startServer(join(here, "servers", "peers.mjs"), {
      nodeArgs: profileArgs("peers"),
    });
    servers.push(peersServer);
    for (const [name, target] of Object.entries(peersServer.targets)) {
      targets.push({ name, target, server: peersServer });
    }
  }
  for (const other of options.compare) {
    const otherDist = resolve(other);
    const build = compareLabel(otherDist);
    const server = await startServer(join(here, "servers", "latchkey.mjs"), {
      nodeArgs: profileArgs(`latchkey@${build}`),
      env: { BENCH_DIST: otherDist, BENCH_BREAKDOWN: "0" },
    });
    servers.push(server);
    // The read, and authorize with and without a credit, of the other build.
    for (const route of ["latchkey", "authorize", "authorize+credit"]) {
      const description = `\`${route}\` built from \`${otherDist}\``;
      targets.push({ name: `${route}@${build}`, target: server.targets[route], server, description });
    }
  }
  const load = { connections: options.connections, pipelining: options.pipelining };
  await measureInterleaved(targets, { options, load, log });
  for (const server of servers) await server.stop();

  const bare = targets.find((entry) => entry.name === "bare");
  const latchkey = targets.find((entry) => entry.name === "latchkey");
  const results = {
    date: new Date().toISOString(),
    command: commandLine(),
    dist: relative(repo, dist) || ".",
    source,
    machine: {
      node: process.version,
      platform: `${platform()} ${process.arch}`,
      cpuModel: cpus()[0]?.model.trim() ?? "unknown",
      cpuCount: cpus().length,
      loadAverageAtEnd: loadavg(),
    },
    options,
    headline: {
      ratio: summarize(latchkey.rounds).requestsPerSecond / summarize(bare.rounds).requestsPerSecond,
      perRound: perRoundRatios(latchkey.rounds, bare.rounds),
      goal: GOAL,
    },
    targets: Object.fromEntries(
      targets.map((entry) => [
        entry.name,
        {
          description: entry.description ?? describe(entry.name),
          path: entry.target.path.replace(/key_[0-9A-Za-z]+/, "{id}"),
          ...entry.probe,
          median: summarize(entry.rounds),
          rounds: entry.rounds,
        },
      ]),
    ),
  };
  results.headline.medianOfPerRound = median(results.headline.perRound);
  const byName = Object.fromEntries(targets.map((entry) => [entry.name, entry]));
  results.ratios = RATIOS.filter(([a, b]) => byName[a] && byName[b]).map(([a, b, goal]) => ({
    numerator: a,
    denominator: b,
    goal,
    ratio: summarize(byName[a].rounds).requestsPerSecond / summarize(byName[b].rounds).requestsPerSecond,
    perRound: perRoundRatios(byName[a].rounds, byName[b].rounds),
  }));
  // Bare's CPU per request over latchkey's: what the requests/s ratio tends to when the server is the
  // bottleneck; it moves much less with other load on the machine than the requests/s ratio does.
  results.headline.cpuCostRatio =
    results.targets.bare.median.serverCpuUsPerRequest / results.targets.latchkey.median.serverCpuUsPerRequest;
  process.stdout.write(`${renderResults(results)}\n`);

  if (!options.dryRun) {
    writeFileSync(join(here, "results", "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
    if (!updateReadme(join(here, "README.md"), results)) log("README.md has no results markers; not updated");
    formatLikeTheRepository([join(here, "README.md")]);
    log("wrote bench/results/latest.json and bench/README.md");
  }
  for (const { name, file } of profiles) {
    process.stdout.write(
      `\n## ${name} server profile (${relative(repo, file)})\n${summarizeProfile(file)}\n`,
    );
  }
} catch (error) {
  for (const server of servers) server.kill();
  throw error;
} finally {
  clearTimeout(watchdog);
}

/** The commit the figures belong to, and whether src/ had uncommitted changes when dist/ was measured. */
function sourceVersion() {
  try {
    const git = (...args) => execFileSync("git", args, { cwd: repo, encoding: "utf8" }).trim();
    return {
      commit: git("rev-parse", "--short", "HEAD"),
      srcModified: git("status", "--porcelain", "--", "src") !== "",
    };
  } catch {
    return null;
  }
}

/** Runs the repository's formatter (prettier) over the files just written, so `npm run lint` stays clean. */
function formatLikeTheRepository(paths) {
  const prettier = join(repo, "node_modules", ".bin", "prettier");
  if (!existsSync(prettier)) return;
  try {
    execFileSync(prettier, ["--write", "--log-level", "warn", ...paths], { cwd: repo, stdio: "ignore" });
  } catch {
    log("could not format the written files; run `npx prettier --write bench/README.md`");
  }
}

function describe(name) {
  const spin = /^bare\+spin(\d+(?:\.\d+)?)us$/.exec(name);
  if (spin) return `control: the bare route plus ${spin[1]} µs of busy CPU work per request`;
  return DESCRIPTIONS[name] ?? name;
}

function commandLine() {
  const args = process.argv.slice(2).join(" ");
  if (process.env.npm_lifecycle_event === "bench") return `npm run bench${args ? ` -- ${args}` : ""}`;
  return `node bench/run.mjs${args ? ` ${args}` : ""}`;
}
