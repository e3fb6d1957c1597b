// Hunts the rare latchkey server process that stays slow (bench/README.md, "A server process that stays
// slow"): starts fresh servers one at a time with V8's GC trace, loads each with the core benchmark's
// read, and reports CPU per request and the collections it ran. The trace of every slow one is kept.
//   npm run build && node bench/gc-hunt.mjs [--runs 50] [--seconds 3] [--node-flag=--no-allocation-site-pretenuring]
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { measure } from "./lib/load.mjs";
import { readCpuSeconds } from "./lib/server-process.mjs";
import { median } from "./lib/stats.mjs";

/** A process at this multiple of the median CPU per request or more counts as slow. */
const SLOW_FACTOR = 1.3;
const START_TIMEOUT_MS = 120_000;

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "50" },
    seconds: { type: "string", default: "3" },
    "node-flag": { type: "string", multiple: true, default: [] },
  },
});
const runs = Number(values.runs);
const seconds = Number(values.seconds);
if (!(runs > 0 && seconds > 0)) throw new Error("--runs and --seconds must be positive numbers");
const nodeFlags = ["--trace-gc", "--trace-pretenuring-statistics", ...values["node-flag"]];
const server = new URL("./servers/latchkey.mjs", import.meta.url).pathname;
const traces = new URL("./results/gc-hunt/", import.meta.url).pathname;

/** Starts one server; resolves with its ready line and a function returning its stdout so far. */
function start() {
  const child = spawn(process.execPath, [...nodeFlags, server], { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  let ready;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server not ready within 120 s")), START_TIMEOUT_MS);
    child.stdout.on("data", (chunk) => {
      output += chunk;
      if (ready) return;
      const line = output.split("\n").find((text) => text.startsWith('{"ready":true'));
      if (!line) return;
      ready = JSON.parse(line);
      clearTimeout(timer);
      resolve({ child, ready, output: () => output });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code} before it was ready`)));
  });
}

const results = [];
for (let run = 0; run < runs; run++) {
  const { child, ready, output } = await start();
  const handle = { port: ready.port, cpuSeconds: () => readCpuSeconds(child.pid) };
  const figures = await measure(handle, ready.targets.latchkey, { seconds, connections: 10, pipelining: 1 });
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  const trace = output();
  const count = (pattern) => (trace.match(pattern) ?? []).length;
  results.push({
    run,
    usPerRequest: figures.serverCpuUsPerRequest,
    markCompacts: count(/Mark-Compact/g),
    scavenges: count(/Scavenge/g),
    trace,
  });
  const last = results[results.length - 1];
  process.stderr.write(
    `[gc-hunt] run ${run}: ${last.usPerRequest.toFixed(1)} µs/request, ` +
      `${last.markCompacts} mark-compacts, ${last.scavenges} scavenges\n`,
  );
}

const typical = median(results.map((result) => result.usPerRequest));
const slow = results.filter((result) => result.usPerRequest >= SLOW_FACTOR * typical);
for (const result of slow) {
  mkdirSync(traces, { recursive: true });
  writeFileSync(join(traces, `slow-run-${result.run}.log`), result.trace);
}
process.stdout.write(
  `${JSON.stringify(
    {
      nodeFlags,
      runs,
      seconds,
      medianUsPerRequest: typical,
      slow: slow.map(({ run, usPerRequest, markCompacts }) => ({ run, usPerRequest, markCompacts })),
      traces: slow.length > 0 ? traces : null,
    },
    null,
    2,
  )}\n`,
);
