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

/** One requirement left out: the exact texts replaced, each as [compiled file, text, replacement]. */
const REMOVALS = {
  "freshness-check": {
    what: "PRAGMA data_version not asked: other processes' writes (the CLI) would go unseen",
    edits: [
      ["cache/sqlite-freshness.js", "const version = dataVersion.get();", "const version = lastDataVersion;"],
    ],
  },
  metrics: {
    what: "no Prometheus metrics (LATCHKEY_METRICS=off)",
    edits: [["config.js", 'metrics: config.LATCHKEY_METRICS === "on"', "metrics: false"]],
  },
  "request-id-header": {
    what: "no X-Request-Id header",
    edits: [["app.js", 'reply.header("X-Request-Id", request.id);', ""]],
  },
  "no-store-header": {
    what: "no Cache-Control: no-store header",
    edits: [["http/no-store.js", 'reply.header("Cache-Control", NO_STORE);', ""]],
  },
  "secret-check": {
    what: "the secret's SHA-256 not computed or compared: any secret accepted",
    edits: [
      [
        "domain/credentials.js",
        'matches: (secret, storedHash, scheme) => equalInConstantTime(scheme === "sha256" ? plainSha256(secret) : digest(secret), storedHash),',
        "matches: () => true,",
      ],
    ],
  },
  "rate-limit-headers": {
    what: "no RateLimit and RateLimit-Policy headers",
    edits: [
      ["http/management-guard.js", "reply.headers(rateLimitHeaders(request.rateLimitDecision));", "{}"],
    ],
  },
};

/** The builds measured: each removal alone, then everything but the rate-limit headers, then all. */
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
  for (const [file, from, to] of removals.flatMap((name) => REMOVALS[name].edits)) {
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
