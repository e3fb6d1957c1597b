import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { freePort } from "./free-port.js";
import { waitUntilStarted } from "./start-deadline.js";

/** A Prometheus of the test's own, scraping the given targets every second. */
export interface ThrowawayPrometheus {
  /** http://127.0.0.1:<port> of its web interface and HTTP API. */
  url: string;
  /** Runs an instant PromQL query and returns its vector (empty while nothing matched yet). */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
}

/**
 * Starts `prometheus` with a config of its own in `dir` (and its data under it), on a free port, and
 * waits until it is ready; it is killed when the test ends.
 */
export async function startThrowawayPrometheus(
  program: string,
  dir: string,
  targets: string[],
): Promise<ThrowawayPrometheus> {
  const config = join(dir, "prometheus.yml");
  writeFileSync(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "  scrape_timeout: 1s",
      "  evaluation_interval: 1s",
      "scrape_configs:",
      "  - job_name: latchkey",
      "    static_configs:",
      `      - targets: [${targets.map((target) => JSON.stringify(target)).join(", ")}]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    program,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  onTestFinished(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGKILL");
    await once(child, "exit");
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilStarted({
    what: "prometheus",
    ready: async () => (await fetch(`${url}/-/ready`)).ok,
    failed: () => (child.exitCode === null ? undefined : `exited with ${child.exitCode}`),
    output: () => output,
    baseMs: 30_000,
    intervalMs: 100,
  });
  return {
    url,
    async query(promql) {
      const response = await fetch(
        `${url}/api/v1/query?${new URLSearchParams({ query: promql }).toString()}`,
      );
      const body = (await response.json()) as {
        status: string;
        error?: string;
        data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== "success" || !body.data) throw new Error(`query ${promql} failed: ${body.error}`);
      return body.data.result;
    },
  };
}
