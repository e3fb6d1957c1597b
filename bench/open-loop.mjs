// Latency of authorize at fixed arrival rates (open loop), one node per backend: SQLite
// (servers/latchkey.mjs) and PostgreSQL + Redis (scale-out-server.mjs), the table a user compares with
// Kong's and Tyk's published ones. For each backend and --rate: p50, p99 and p99.9 of authorize (no
// group, no credits, as a platform service calls it), and the rate achieved; then, with --search, the
// most decisions per second the node sustains with p99 under --p99-ms (each step a rate x1.25 higher,
// until the node falls behind the offered rate by more than 2% or its p99 passes the bound).
//   npm run build && node bench/open-loop.mjs [--rate 1000 --rate 5000] [--duration 10]
//     [--backend sqlite --backend postgres] [--search] [--p99-ms 10] [--route authorize] [--compare <dist>]
// The load is lib/open-loop-load.mjs: requests sent on schedule over a keep-alive pool, each latency
// counted from the moment its request was due (autocannon's overallRate held requests back behind slow
// answers, which hid the waits). The generator shares the machine with the server; its own lag counts.
import { loadavg, cpus } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { openLoop } from "./lib/open-loop-load.mjs";
import { startServer } from "./lib/server-process.mjs";

const { values } = parseArgs({
  options: {
    rate: { type: "string", multiple: true },
    duration: { type: "string", default: "10" },
    backend: { type: "string", multiple: true },
    search: { type: "boolean", default: false },
    "p99-ms": { type: "string", default: "10" },
    route: { type: "string", default: "authorize" },
    compare: { type: "string", multiple: true },
  },
});
const rates = (values.rate ?? ["1000", "5000"]).map(Number);
const duration = Number(values.duration);
const p99Bound = Number(values["p99-ms"]);
const backends = values.backend ?? ["sqlite", "postgres"];
const SERVERS = {
  sqlite: { script: "./servers/latchkey.mjs", target: (route) => route },
  postgres: { script: "./scale-out-server.mjs", target: (route) => `${route}-pg-redis` },
};
const builds = [
  { name: "latchkey", dist: resolve("dist") },
  ...(values.compare ?? []).map((dist) => ({ name: `latchkey@${dist}`, dist: resolve(dist) })),
];
const log = (line) => process.stderr.write(`[open-loop] ${line}\n`);

async function measure(running, target, rate) {
  const { latencies, failures, achieved } = await openLoop({
    port: running.port,
    target,
    rate,
    seconds: duration,
  });
  if (failures > 0) throw new Error(`${failures} requests failed or were not answered 200`);
  return {
    offered: rate,
    achieved,
    p50: latencies.percentile(50),
    p99: latencies.percentile(99),
    p999: latencies.percentile(99.9),
  };
}

/** The histogram's last bucket holds everything from 1 s up. */
const ms = (value) => (value >= 1000 ? ">= 1000" : value.toFixed(2));
const row = (build, backend, m) =>
  `| \`${build.name}\` | ${backend} | ${m.offered} | ${Math.round(m.achieved)} | ${ms(m.p50)} | ` +
  `${ms(m.p99)} | ${ms(m.p999)} | ${loadavg()[0].toFixed(1)} |`;

console.log(
  `${values.route}, one node per backend, ${duration} s per rate, open loop; ` +
    `Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model.trim()}`,
);
console.log("");
console.log("| build | backend | offered/s | achieved/s | p50 ms | p99 ms | p99.9 ms | load (1 min) |");
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
const sustained = [];
for (const backend of backends) {
  for (const build of builds) {
    const server = SERVERS[backend];
    const running = await startServer(new URL(server.script, import.meta.url).pathname, {
      env: { BENCH_DIST: build.dist },
    });
    try {
      const target = running.targets[server.target(values.route)];
      if (!target) throw new Error(`${backend} has no target ${server.target(values.route)}`);
      // Gentle: an overloaded warm-up left the first server measured far behind (a backlog of its own).
      log(`${backend} ${build.name}: warm-up`);
      await measure(running, target, 300);
      for (const rate of rates) {
        const m = await measure(running, target, rate);
        console.log(row(build, backend, m));
      }
      if (values.search) {
        let best;
        for (let rate = 1000; ; rate = Math.round(rate * 1.25)) {
          const m = await measure(running, target, rate);
          log(`${backend} ${build.name} search ${rate}/s: achieved ${Math.round(m.achieved)}, p99 ${m.p99}`);
          if (m.achieved < 0.98 * rate || m.p99 >= p99Bound) break;
          best = m;
        }
        sustained.push({ backend, build, best });
      }
    } finally {
      await running.stop();
    }
  }
}
if (values.search) {
  console.log("");
  console.log(`Most decisions per second one node sustains with p99 under ${p99Bound} ms (steps of x1.25):`);
  for (const { backend, build, best } of sustained) {
    console.log(
      best
        ? `- ${backend} (\`${build.name}\`): ${best.offered}/s (p50 ${best.p50.toFixed(2)}, p99 ${best.p99.toFixed(2)}, p99.9 ${best.p999.toFixed(2)} ms)`
        : `- ${backend} (\`${build.name}\`): below 1,000/s`,
    );
  }
}
