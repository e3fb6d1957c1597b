import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { describeWithServices } from "../helpers/services.js";

const dist = fileURLToPath(new URL("../../dist", import.meta.url));
const worker = fileURLToPath(new URL("./redis-exactness.worker.mjs", import.meta.url));

interface Run {
  key: string;
  quota: number;
  windowMs: number;
  /** When the run starts, in ms after the common start every process is told once all are ready. */
  startOffsetMs: number;
  durationMs: number;
}

interface RunResult {
  /** Redis times of this process's admissions. */
  admitted: number[];
  decisions: number;
}

interface Worker {
  /** Resolves once the process is connected to Redis and waits for the start. */
  ready: Promise<void>;
  /** Tells the process the common start (epoch ms); the runs are offsets from it. */
  start(at: number): void;
  results: Promise<RunResult[]>;
}

function startWorker(redisUrl: string, runs: Run[]): Worker {
  const child = spawn(process.execPath, [worker, dist, redisUrl, "6", JSON.stringify(runs)], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  let announceReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    announceReady = resolve;
  });
  child.stdout.on("data", (chunk: Buffer) => {
    out += String(chunk);
    if (out.startsWith("ready\n")) announceReady();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += String(chunk);
  });
  const results = new Promise<RunResult[]>((resolve, reject) =>
    child.once("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out.slice("ready\n".length)) as RunResult[])
        : reject(new Error(`worker exited ${code}: ${err}`)),
    ),
  );
  return { ready, start: (at) => child.stdin.end(`${at}\n`), results };
}

/** The largest number of admissions holding a slot at one instant (each holds one for `windowMs`). */
function mostInOneWindow(sortedTimes: number[], windowMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < sortedTimes.length; last++) {
    while ((sortedTimes[first] as number) + windowMs <= (sortedTimes[last] as number)) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describeWithServices(["redis"], "Redis limiter exactness across processes", ({ redis }) => {
  test("four processes of six callers each never get more than the quota in any window, run after run", async () => {
    if (!existsSync(`${dist}/ratelimit/redis-sliding-log.js`)) {
      throw new Error("dist/ is missing or stale: run `npm run build` first (`npm test` does).");
    }
    let startOffsetMs = 0;
    const runs: Run[] = [];
    for (let i = 0; i < 3; i++) {
      runs.push({ key: `lk-test:${randomUUID()}`, quota: 7, windowMs: 200, startOffsetMs, durationMs: 600 });
      startOffsetMs += 650;
    }
    // Last, a window longer than the run: together the processes must get exactly the quota.
    runs.push({
      key: `lk-test:${randomUUID()}`,
      quota: 50,
      windowMs: 60_000,
      startOffsetMs,
      durationMs: 300,
    });
    // Processes start slowly on a loaded machine: every run starts at one instant, once all are connected.
    const workers = [1, 2, 3, 4].map(() => startWorker(redis, runs));
    await Promise.all(workers.map((w) => w.ready));
    const startAt = Date.now() + 100;
    for (const w of workers) w.start(startAt);
    const perProcess = await Promise.all(workers.map((w) => w.results));

    runs.forEach((run, index) => {
      const results = perProcess.map((runResults) => runResults[index] as RunResult);
      const admitted = results.flatMap((r) => r.admitted).sort((a, b) => a - b);
      const decisions = results.reduce((sum, r) => sum + r.decisions, 0);
      expect(decisions).toBeGreaterThan(admitted.length * 3);
      if (run.windowMs === 60_000) {
        expect(admitted).toHaveLength(run.quota);
        // The race was real: every process asked. The whole quota may go to whichever process asks
        // first (its 6 callers can take 50 slots in a millisecond), so who was admitted proves nothing.
        expect(results.every((r) => r.decisions > 0)).toBe(true);
      } else {
        // The window slid several times during the run, and was full each time it could be.
        expect(admitted.length).toBeGreaterThanOrEqual(run.quota * 2);
        expect(mostInOneWindow(admitted, run.windowMs)).toBe(run.quota);
        // The race was real: over several slides, admissions went to more than one process.
        expect(results.filter((r) => r.admitted.length > 0).length).toBeGreaterThan(1);
      }
    });
  });
});
