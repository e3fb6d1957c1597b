// How long the executables take to start, bundled (as `npm run build` ships them) against the same code
// as `tsc` alone compiles it, one module per file: `latchkey --version`, `latchkey org create` on a new
// SQLite database, and `node dist/main.js` until /healthz answers. Interleaved rounds; medians.
// `--compare <dist>` adds another bundled build (inside the repository, e.g. bench/.ablation/x/dist).
//   npm run build && node bench/start-time.mjs [--rounds 7] [--compare <dist>]
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "./lib/free-port.mjs";
import { median } from "./lib/stats.mjs";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "7" },
    compare: { type: "string", multiple: true, default: [] },
  },
});
const rounds = Number(values.rounds);
if (!(rounds > 0)) throw new Error("--rounds must be a positive number");

const repo = new URL("..", import.meta.url).pathname;
const unbundled = join(repo, "bench", ".start-time", "dist");
if (!existsSync(join(repo, "dist/chunks")))
  throw new Error("dist/ is not bundled: run `npm run build` first.");
// Inside the repository, so that the compiled modules find node_modules and package.json above them.
rmSync(unbundled, { recursive: true, force: true });
// Not incremental: the build record belongs to dist/, and this folder starts empty.
const tscArgs = ["tsc", "-p", "tsconfig.build.json", "--outDir", unbundled, "--incremental", "false"];
const compiled = spawnSync("npx", tscArgs, { cwd: repo, stdio: "inherit" });
if (compiled.status !== 0) throw new Error("tsc failed");

const BUILDS = {
  bundled: join(repo, "dist"),
  unbundled,
  ...Object.fromEntries(values.compare.map((dist) => [dist, resolve(dist)])),
};

/** Milliseconds until `node args` exits with status 0. */
function timedRun(args, env) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${result.stderr}`);
  return performance.now() - started;
}

/** Milliseconds from the spawn of `node main.js` until /healthz answers 200. */
async function serverReadyMs(dist, env) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [join(dist, "main.js")], {
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", LATCHKEY_BOOTSTRAP: "print" },
    stdio: "ignore",
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return performance.now() - started;
      if (performance.now() - started > 60_000) throw new Error("the server did not start within 60 s");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    child.kill("SIGKILL");
  }
}

/** One figure of each measurement for one build, each on a new SQLite database. */
async function measureOnce(dist) {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-start-"));
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "latchkey.db")}`, LATCHKEY_DATABASE_CREATE: "on" };
  try {
    const cli = join(dist, "cli/bin.js");
    return {
      version: timedRun([cli, "--version"], env),
      orgCreate: timedRun([cli, "org", "create", "--name", "acme", "--json"], env),
      serverReady: await serverReadyMs(dist, {
        ...env,
        LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "s.db")}`,
      }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const figures = Object.fromEntries(Object.keys(BUILDS).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  // Alternate which build goes first, so neither always runs on a machine the other just warmed.
  const order = round % 2 ? Object.keys(BUILDS).reverse() : Object.keys(BUILDS);
  for (const name of order) figures[name].push(await measureOnce(BUILDS[name]));
}

const MEASURES = {
  version: "latchkey --version",
  orgCreate: "latchkey org create (new SQLite)",
  serverReady: "node dist/main.js until /healthz (new SQLite)",
};
const ms = (value) => `${Math.round(value)} ms`;
console.log(`${rounds} interleaved rounds, median (each round's figures)\n`);
for (const [field, what] of Object.entries(MEASURES)) {
  const of = (name) => figures[name].map((f) => f[field]);
  const bundled = median(of("bundled"));
  console.log(what);
  for (const name of Object.keys(BUILDS)) {
    const ratio = name === "bundled" ? "" : `  bundled / this: ${(bundled / median(of(name))).toFixed(2)}`;
    console.log(
      `  ${name.padEnd(9)} ${ms(median(of(name)))}  (${of(name).map(Math.round).join(", ")})${ratio}`,
    );
  }
  console.log("");
}
rmSync(join(repo, "bench", ".start-time"), { recursive: true, force: true });
