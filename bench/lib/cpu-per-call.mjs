// CPU cost per call of one in-process operation, for the micro benchmarks (micro.mjs, platform-micro.mjs,
// last-use.mjs). Bounded: `batches` batches of at most `limit` calls or `ms` milliseconds each; the median
// batch is reported, in µs of CPU time per call.
import { median } from "./stats.mjs";

/** Times `run` (sync or async) and returns the median batch's CPU µs per call. */
export async function cpuMicrosPerCall(run, { batches = 5, limit = 50_000, ms = 1000 } = {}) {
  const isAsync = run() instanceof Promise;
  const perCall = [];
  for (let batch = 0; batch < batches; batch++) {
    const deadline = performance.now() + ms;
    // CPU time, not wall time: on a shared machine the process is often descheduled mid-batch.
    const started = process.cpuUsage();
    let count = 0;
    while (count < limit && performance.now() < deadline) {
      for (let i = 0; i < 100; i++) {
        if (isAsync) await run();
        else run();
      }
      count += 100;
    }
    const used = process.cpuUsage(started);
    perCall.push((used.user + used.system) / count);
  }
  return median(perCall);
}
