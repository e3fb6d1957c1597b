import { writeFileSync } from "node:fs";
import { expect, test } from "vitest";
import { type FuzzReport, fuzzOpenApi, problemsOf } from "./fuzz-runner.js";

// Requests generated from the app's own /openapi.json (every operation; valid and broken bodies, odd
// queries, ids, credentials and content types) sent with app.inject: no 5xx, every status documented
// for its operation (or one the HTTP layer gives any route: 404, 405, 413, 415), every error in the
// error shape with a code. CI runs LATCHKEY_FUZZ_CASES (5,000 by default: some 80 an operation, enough
// for each of the 62 to be allowed once; 3,000 left a resend never allowed); bench/fuzz-openapi.mjs runs
// 100,000 through this same file and prints the report it writes to LATCHKEY_FUZZ_REPORT.
const cases = Number(process.env.LATCHKEY_FUZZ_CASES ?? 5000);
const seed = Number(process.env.LATCHKEY_FUZZ_SEED ?? 20261127);

test("the checks catch a 500, an undocumented status and an error without a code (so the fuzz test can fail)", () => {
  const error = (status: number, code?: string) =>
    JSON.stringify({ statusCode: status, error: "x", message: "y", ...(code ? { code } : {}) });
  expect(problemsOf(["200", "400"], 500, error(500, "internal"))).toEqual([
    "a 500",
    "undocumented status 500",
  ]);
  expect(problemsOf(["200", "400"], 409, error(409, "conflict"))).toEqual(["undocumented status 409"]);
  expect(problemsOf(["200", "400"], 400, error(400))).toEqual([
    "an error body without {statusCode, error, message, code}",
  ]);
  expect(problemsOf(["200"], 415, "<html>")).toEqual(["an error body that is not JSON"]);
  expect(problemsOf(["200", "400"], 400, error(400, "invalid_request"))).toEqual([]);
});

test(
  `${cases} requests generated from /openapi.json: no 5xx, only documented statuses, every error with a code`,
  async () => {
    const reportFile = process.env.LATCHKEY_FUZZ_REPORT;
    // The report so far after every batch, so that a long run can be followed (and read if stopped).
    const write = (report: FuzzReport) =>
      reportFile && writeFileSync(reportFile, JSON.stringify(report, null, 2));
    const report = await fuzzOpenApi({ cases, seed, onProgress: write });
    write(report);
    expect(report.cases).toBe(cases);
    expect(report.findings.slice(0, 5)).toEqual([]);
    // Not vacuous: every operation was reached, was allowed at least once and refused bad input.
    expect(Object.keys(report.statuses).sort()).toEqual([...report.operations].sort());
    for (const [operation, statuses] of Object.entries(report.statuses)) {
      const seen = Object.keys(statuses);
      expect(
        seen.some((s) => s.startsWith("2")),
        `${operation}: ${seen.join(",")}`,
      ).toBe(true);
      expect(
        seen.some((s) => s.startsWith("4")),
        `${operation}: ${seen.join(",")}`,
      ).toBe(true);
    }
  },
  Math.max(120_000, cases * 20),
);
