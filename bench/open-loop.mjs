// Latency of the core read at fixed arrival rates (open loop), to see what holding a request until the
// end of its event-loop turn (src/cache/sqlite-freshness.ts) costs when the server is not saturated.
// Each build serves in its own process; the rates alternate between the builds, each for --duration s.
//   node bench/open-loop.mjs [--rate 200 --rate 2000] [--duration 8] [--compare <other dist>]
// autocannon's own scheduling is in these latencies: compare builds in the same run, not absolutes.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { LatencyHistogram } from "./lib/load.mjs";
import { startServer } from "./lib/server-process.mjs";

const { values } = parseArgs({
  options: {
    rate: { type: "string", multiple: true },
    duration: { type: "string", default: "8" },
    compare: { type: "string", multiple: true },
  },
});
const rates = (values.rate ?? ["200", "2000"]).map(Number);
const duration = Number(values.duration);
const builds = [
  { name: "latchkey", dist: resolve("dist") },
  ...(values.compare ?? []).map((dist) => ({ name: `latchkey@${dist}`, dist: resolve(dist) })),
];
const server = new URL("./servers/latchkey.mjs", import.meta.url).pathname;

async function measure(build, rate) {
  const running = await startServer(server, { env: { BENCH_DIST: build.dist } });
  try {
    const target = running.targets.latchkey;
    const latencies = new LatencyHistogram();
    let failures = 0;
    const instance = autocannon({
      url: `http://127.0.0.1:${running.port}${target.path}`,
      headers: target.headers,
      connections: 10,
      overallRate: rate,
      duration,
    });
    instance.on("response", (_client, status, _bytes, ms) => {
      if (status === 200) latencies.record(ms);
      else failures++;
    });
    await instance;
    if (failures > 0) throw new Error(`${build.name}: ${failures} responses were not 200`);
    return {
      n: latencies.total,
      p50: latencies.percentile(50),
      p90: latencies.percentile(90),
      p99: latencies.percentile(99),
    };
  } finally {
    await running.stop();
  }
}

console.log("| build | requests/s offered | responses | p50 ms | p90 ms | p99 ms |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const rate of rates) {
  for (const build of builds) {
    const { n, p50, p90, p99 } = await measure(build, rate);
    console.log(
      `| \`${build.name}\` | ${rate} | ${n} | ${p50.toFixed(2)} | ${p90.toFixed(2)} | ${p99.toFixed(2)} |`,
    );
  }
}
