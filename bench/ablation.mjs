// What the read's ratio to bare Fastify would be without each thing the contract requires of it: builds
// copies of dist/ with one requirement removed (a text replacement in the compiled code), then has
// run.mjs measure them side by side with the real build (`--compare`, interleaved rounds). These builds
// are wrong on purpose and exist only in bench/.ablation/; none of them may ever serve anyone.
//   npm run build && node bench/ablation.mjs [run.mjs options, e.g. --duration 5 --rounds 3]
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const repo = new URL("..", import.meta.url).pathname;
const workspace = join(repo, "bench", ".ablation");

/** One requirement left out: the compiled file and the exact text replaced in it. */
const REMOVALS = {
  "freshness-check": {
    what: "PRAGMA data_version not asked: other processes' writes (the CLI) would go unseen",
    file: "store/sqlite-freshness.js",
    from: "const version = dataVersion.get();",
    to: "const version = lastDataVersion;",
  },
  metrics: {
    what: "no Prometheus metrics (LATCHKEY_METRICS=off)",
    file: "config.js",
    from: 'metrics: config.LATCHKEY_METRICS === "on"',
    to: "metrics: false",
  },
  "request-id-header": {
    what: "no X-Request-Id header",
    file: "app.js",
    from: 'reply.header("X-Request-Id", request.id);',
    to: "",
  },
  "no-store-header": {
    what: "no Cache-Control: no-store header",
    file: "http/no-store.js",
    from: 'reply.header("Cache-Control", "no-store");',
    to: "",
  },
  "secret-check": {
    what: "the secret's SHA-256 not computed or compared: any secret accepted",
    file: "domain/credentials.js",
    from: "matches: (secret, storedHash) => equalInConstantTime(digest(secret), storedHash),",
    to: "matches: () => true,",
  },
  "rate-limit-headers": {
    what: "no RateLimit and RateLimit-Policy headers",
    file: "http/management-guard.js",
    from: "reply.headers(rateLimitHeaders(request.rateLimitDecision));",
    to: "",
  },
  logger: {
    what: "no logger (no request log context, no error logs)",
    file: "app.js",
    from: "logger: loggerOptions(config, logStream),",
    to: "logger: false,",
  },
};

/** The builds measured: each removal alone, then everything but the logger and rate-limit headers, then all. */
const VARIANTS = {
  ...Object.fromEntries(Object.keys(REMOVALS).map((name) => [`no-${name}`, [name]])),
  "no-first-five": ["freshness-check", "metrics", "request-id-header", "no-store-header", "secret-check"],
  "no-all": Object.keys(REMOVALS),
};

const dist = join(repo, "dist");
if (!existsSync(join(dist, "app.js"))) throw new Error("dist/app.js is missing: run `npm run build` first.");
rmSync(workspace, { recursive: true, force: true });

const compare = [];
for (const [variant, removals] of Object.entries(VARIANTS)) {
  // dist/ next to a package.json, inside the repository: the build reads ../package.json and
  // resolves its dependencies from the repository's node_modules.
  const root = join(workspace, variant);
  mkdirSync(root, { recursive: true });
  cpSync(dist, join(root, "dist"), { recursive: true });
  cpSync(join(repo, "package.json"), join(root, "package.json"));
  for (const name of removals) {
    const { file, from, to } = REMOVALS[name];
    const path = join(root, "dist", file);
    const code = readFileSync(path, "utf8");
    if (!code.includes(from))
      throw new Error(`${variant}: "${from}" is no longer in dist/${file}; update bench/ablation.mjs.`);
    writeFileSync(path, code.replace(from, to));
  }
  compare.push("--compare", join(root, "dist"));
}

for (const [name, { what }] of Object.entries(REMOVALS))
  process.stdout.write(`[ablation] no-${name}: ${what}\n`);
const run = spawnSync(
  process.execPath,
  [join(repo, "bench", "run.mjs"), "--dry-run", ...compare, ...process.argv.slice(2)],
  { stdio: "inherit" },
);
rmSync(workspace, { recursive: true, force: true });
process.exit(run.status ?? 1);
