// The property-based test over the OpenAPI document (test/openapi/openapi-fuzz.test.ts) at full size:
// 100,000 requests generated from /openapi.json by default (CI runs 3,000), sent with app.inject to
// in-memory SQLite apps. Prints the cases run, the answers by status, and every finding: a 5xx, a status
// the operation does not document, an error body without the error shape. Exits 1 on any finding.
// Runs the TypeScript test through vitest, so that the generator and the checks exist once.
// The report, rewritten after every 500 cases, is kept at --report (follow it with
// `jq .cases <file>`).
//   node bench/fuzz-openapi.mjs [--cases 100000] [--seed 20261127] [--report <file>]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "100000" },
    seed: { type: "string", default: "20261127" },
    report: { type: "string" },
  },
});
const cases = Number(values.cases);
if (!(Number.isInteger(cases) && cases > 0)) throw new Error("--cases must be a positive whole number");

const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "latchkey-fuzz-"));
const reportFile = values.report ?? join(dir, "report.json");
const started = Date.now();
const run = spawnSync(
  process.execPath,
  [join(root, "node_modules/vitest/vitest.mjs"), "run", "test/openapi/openapi-fuzz.test.ts"],
  {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      LATCHKEY_FUZZ_CASES: String(cases),
      LATCHKEY_FUZZ_SEED: values.seed,
      LATCHKEY_FUZZ_REPORT: reportFile,
    },
  },
);
let report;
try {
  report = JSON.parse(readFileSync(reportFile, "utf8"));
} catch {
  console.error(`the fuzz test wrote no report (vitest exited with ${run.status})`);
  process.exit(1);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const byStatus = {};
for (const statuses of Object.values(report.statuses)) {
  for (const [status, count] of Object.entries(statuses)) byStatus[status] = (byStatus[status] ?? 0) + count;
}
const fiveHundreds = report.findings.filter((finding) => finding.status >= 500);
console.log(`\ncases: ${report.cases} (seed ${report.seed}, ${report.operations.length} operations)`);
console.log(`seconds: ${((Date.now() - started) / 1000).toFixed(0)}`);
console.log(`answers by status: ${JSON.stringify(byStatus)}`);
console.log(`5xx: ${fiveHundreds.length}`);
console.log(`findings: ${report.findings.length}`);
for (const finding of report.findings.slice(0, 50)) console.log(JSON.stringify(finding));
process.exit(report.findings.length === 0 && run.status === 0 ? 0 : 1);
