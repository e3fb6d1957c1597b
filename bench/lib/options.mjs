// Command-line flags, with environment variables as defaults, so quick runs need no editing.
import { parseArgs } from "node:util";

const USAGE = `node bench/run.mjs [options]   (run \`npm run build\` first)
  --duration <s>     seconds per measurement        (BENCH_DURATION, default 10)
  --rounds <n>       interleaved rounds per target   (BENCH_ROUNDS, default 3)
  --connections <n>  concurrent connections          (BENCH_CONNECTIONS, default 10)
  --warmup <s>       warm-up seconds per target      (BENCH_WARMUP, default 3)
  --breakdown        also measure latchkey routes that each run part of the hot path
  --peers            also measure the peers of servers/peers.mjs (Better Auth, basic-auth + rate-limit)
  --cpu-prof         profile both servers (node --cpu-prof) into bench/results/profiles/
  --dist <dir>       latchkey build to import instead of ./dist (e.g. a scratch copy)
  --spin <µs>        also measure the bare route plus that much busy CPU work (a control; repeatable)
  --compare <dir>    also measure another latchkey build (its dist/) as targets <route>@<name> (repeatable)
  --only <name>      platform.mjs: measure only this target (and its baseline; repeatable)
  --dry-run          print results only; leave latest.json and README.md untouched
  --help`;

function positiveNumber(name, raw, fallback) {
  const value = Number(raw ?? fallback);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, not "${raw}"`);
  return value;
}

/** Reads argv and env once; a bad value stops the run with a message naming it. */
export function readOptions(argv = process.argv.slice(2), env = process.env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: "string" },
      rounds: { type: "string" },
      connections: { type: "string" },
      warmup: { type: "string" },
      breakdown: { type: "boolean", default: false },
      peers: { type: "boolean", default: false },
      "cpu-prof": { type: "boolean", default: false },
      dist: { type: "string" },
      compare: { type: "string", multiple: true, default: [] },
      spin: { type: "string", multiple: true, default: [] },
      only: { type: "string", multiple: true, default: [] },
      "dry-run": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  return {
    duration: positiveNumber("--duration", values.duration ?? env.BENCH_DURATION, 10),
    rounds: Math.round(positiveNumber("--rounds", values.rounds ?? env.BENCH_ROUNDS, 3)),
    connections: Math.round(positiveNumber("--connections", values.connections ?? env.BENCH_CONNECTIONS, 10)),
    warmup: positiveNumber("--warmup", values.warmup ?? env.BENCH_WARMUP, 3),
    pipelining: 1,
    breakdown: values.breakdown,
    peers: values.peers,
    cpuProf: values["cpu-prof"],
    dist: values.dist ?? env.BENCH_DIST,
    compare: values.compare,
    spinUs: values.spin.map((us) => positiveNumber("--spin", us, 0)),
    only: values.only,
    dryRun: values["dry-run"],
  };
}

/** The name a --compare build is reported under: its folder, or the folder holding its dist/. */
export function compareLabel(dist) {
  const parts = dist.split("/").filter(Boolean);
  return (parts.at(-1) === "dist" ? parts.at(-2) : parts.at(-1)) ?? dist;
}
