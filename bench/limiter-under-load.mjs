// The shared limiter's exactness under a CPU hog, in full: runs the multi-node suite
// (test/multinode/limiter-under-load.test.ts: three dist/ nodes over PostgreSQL and a redis-server of
// its own, a busy-looping process per core) with 30 repetitions instead of CI's few, and reports the
// requests admitted in each run. Exact means 100 of 150 reads and 20 of 30 writes, every run.
//
//   npm run build
//   LATCHKEY_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test \
//     node bench/limiter-under-load.mjs [--runs 30]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { runs: { type: "string", default: "30" } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs must be a whole number >= 1");
if (!process.env.LATCHKEY_TEST_POSTGRES_URL) throw new Error("set LATCHKEY_TEST_POSTGRES_URL");

const dir = mkdtempSync(join(tmpdir(), "latchkey-limiter-bench-"));
const report = join(dir, "runs.jsonl");
const started = Date.now();
const vitest = spawnSync(
  "npx",
  ["vitest", "run", "test/multinode/limiter-under-load.test.ts", "-t", "every core busy"],
  {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, LATCHKEY_TEST_LIMITER_RUNS: String(runs), LATCHKEY_TEST_LIMITER_REPORT: report },
  },
);
let lines = [];
try {
  lines = readFileSync(report, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
} catch {
  // no run finished; reported below
}
rmSync(dir, { recursive: true, force: true });

console.log(`\n${lines.length} of ${runs} runs, ${Math.round((Date.now() - started) / 1000)} s in all`);
console.log(
  `run  ${"reads admitted/asked (quota 100)".padStart(40)}  ${"writes admitted/asked (quota 20)".padStart(42)}  ${"other statuses".padStart(14)}  slowest ms`,
);
for (const r of lines) {
  const others = [r.readStatuses, r.writeStatuses]
    .flatMap((counts) => Object.entries(counts).filter(([status]) => !["200", "429"].includes(status)))
    .map(([status, n]) => `${n}x${status}`)
    .join(" ");
  console.log(
    `${String(r.run).padStart(3)}  ${`${r.reads}/${r.readsAsked}`.padStart(40)}  ${`${r.writes}/${r.writesAsked}`.padStart(42)}  ${(others || "-").padStart(14)}  ${String(r.slowestMs).padStart(10)}`,
  );
}
// Requests that failed before the limiter (a database timeout, say) never asked it.
const over = lines.filter((r) => r.reads > 100 || r.writes > 20);
const under = lines.filter(
  (r) => r.reads < Math.min(100, r.readsAsked) || r.writes < Math.min(20, r.writesAsked),
);
console.log(
  `over-admissions: ${over.length} runs; under-admissions: ${under.length} runs; exact: ${lines.filter((r) => !over.includes(r) && !under.includes(r)).length} of ${lines.length}`,
);
process.exit(vitest.status === 0 && lines.length === runs ? 0 : 1);
