// One bounded autocannon measurement of one target, with the server's and the load generator's CPU use.
import { readFileSync } from "node:fs";
import autocannon from "autocannon";

/** Upper bound on requests per measurement, well above what 2 cores can serve, so no loop is unbounded. */
const MAX_REQUESTS_PER_SECOND = 200_000;

/** Sends one request and checks it succeeds, so a misconfigured target fails fast instead of benching 401s. */
export async function probe(server, target) {
  const response = await fetch(`http://127.0.0.1:${server.port}${target.path}`, {
    method: target.method ?? "GET",
    headers: target.headers,
    body: target.body,
  });
  const body = await response.text();
  if (response.status !== 200 || (target.expectBody && !body.includes(target.expectBody))) {
    throw new Error(`probe of ${target.path} answered ${response.status}: ${body.slice(0, 200)}`);
  }
  // Decisions answer 200 either way: a refusal would be benchmarked as a fast path.
  if (/"allowed":false/.test(body))
    throw new Error(`probe of ${target.path} was refused: ${body.slice(0, 300)}`);
  const headerBytes = [...response.headers].reduce(
    (sum, [name, value]) => sum + name.length + value.length + 4,
    0,
  );
  return { bodyBytes: Buffer.byteLength(body), headerBytes };
}

/** Runs autocannon for `seconds` against one target; returns the figures that matter. */
export async function measure(server, target, { seconds, connections, pipelining }) {
  const machineBefore = machineBusySeconds();
  const cpuBefore = server.cpuSeconds();
  const userBefore = server.cpuUserSeconds?.() ?? null;
  const loadBefore = process.cpuUsage();
  const started = performance.now();
  const latencies = new LatencyHistogram();
  const run = autocannon({
    url: `http://127.0.0.1:${server.port}${target.path}`,
    method: target.method ?? "GET",
    headers: target.headers,
    body: target.body,
    connections,
    pipelining,
    duration: seconds,
    maxOverallRequests: Math.ceil(seconds * MAX_REQUESTS_PER_SECOND),
    timeout: 10,
  });
  run.on("response", (_client, _status, _bytes, milliseconds) => latencies.record(milliseconds));

  const result = await run;
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = server.cpuSeconds();
  const userAfter = server.cpuUserSeconds?.() ?? null;
  const load = process.cpuUsage(loadBefore);
  const machineAfter = machineBusySeconds();
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) {
    throw new Error(
      `${target.path}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  const requests = result.requests.total;
  const serverCpu = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
  const loadCpu = (load.user + load.system) / 1e6;
  const machineCpu = machineBefore === null || machineAfter === null ? null : machineAfter - machineBefore;
  return {
    requestsPerSecond: requests / result.duration,
    p50Ms: latencies.percentile(50),
    p99Ms: latencies.percentile(99),
    requests,
    seconds: result.duration,
    bytesPerResponse: result.throughput.total / requests,
    serverCpuUsPerRequest: serverCpu === null ? null : (serverCpu * 1e6) / requests,
    // The part spent in user space (JavaScript, V8, Node); the rest is the kernel's, for one process.
    serverUserUsPerRequest:
      userBefore === null || userAfter === null ? null : ((userAfter - userBefore) * 1e6) / requests,
    serverCpuUtilization: serverCpu === null ? null : serverCpu / elapsed,
    loadGeneratorCpuUtilization: loadCpu / elapsed,
    // Cores' worth of CPU that everything else on the machine used meanwhile (shared machines are noisy).
    otherCpuCores:
      machineCpu === null || serverCpu === null
        ? null
        : Math.max(0, machineCpu - serverCpu - loadCpu) / elapsed,
  };
}

/**
 * Response times in 10 µs buckets up to 1 s (autocannon's own histogram keeps whole milliseconds,
 * too coarse for a sub-millisecond route). Fixed memory whatever the number of requests.
 */
export class LatencyHistogram {
  static BUCKET_MS = 0.01;
  counts = new Uint32Array(100_001);
  total = 0;

  record(milliseconds) {
    const bucket = Math.min(this.counts.length - 1, Math.floor(milliseconds / LatencyHistogram.BUCKET_MS));
    this.counts[bucket] = (this.counts[bucket] ?? 0) + 1;
    this.total++;
  }

  /** Upper edge of the bucket holding the given percentile, in milliseconds. */
  percentile(percent) {
    const rank = Math.ceil((percent / 100) * this.total);
    let seen = 0;
    for (let bucket = 0; bucket < this.counts.length; bucket++) {
      seen += this.counts[bucket] ?? 0;
      if (seen >= rank) return (bucket + 1) * LatencyHistogram.BUCKET_MS;
    }
    return null;
  }
}

/** CPU seconds the whole machine has been busy (all cores), from /proc/stat; null off Linux. */
function machineBusySeconds() {
  try {
    // A field /proc/stat lacks is NaN, not 0: no made-up figure.
    const [user = NaN, nice = NaN, system = NaN, , , irq = NaN, softirq = NaN, steal = NaN] = (
      readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? ""
    )
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return (user + nice + system + irq + softirq + steal) / 100;
  } catch {
    return null;
  }
}

/** Alternates the order each round (A B, B A, ...) so neither target always runs right after the other. */
export const alternating = (targets, round) => (round % 2 === 0 ? targets : [...targets].reverse());

/**
 * The shared shape of every HTTP benchmark here: probe each target (`entry.probe`), warm each up, then
 * measure them in interleaved rounds (`entry.rounds`), logging each measurement. `order(targets, round)`
 * picks each round's order; `around(entry, run)` may wrap a measurement (to count round trips, say)
 * and returns its figures. A target with a body (a decision, which answers 200 even when it refuses)
 * is probed again after each round, so a run that started refusing fails instead of being reported.
 */
export async function measureInterleaved(targets, { options, load, log, order = alternating, around }) {
  for (const entry of targets) {
    entry.probe = await probe(entry.server, entry.target);
    entry.rounds = [];
  }
  for (const entry of targets) {
    log(`warm-up ${entry.name} (${options.warmup} s)`);
    await measure(entry.server, entry.target, { ...load, seconds: options.warmup });
  }
  for (let round = 0; round < options.rounds; round++) {
    for (const entry of order(targets, round)) {
      const run = () => measure(entry.server, entry.target, { ...load, seconds: options.duration });
      const figures = around ? await around(entry, run) : await run();
      if (entry.target.body) await probe(entry.server, entry.target);
      entry.rounds.push(figures);
      log(
        `round ${round + 1}/${options.rounds} ${entry.name}: ${Math.round(figures.requestsPerSecond)} req/s, ` +
          `p99 ${figures.p99Ms?.toFixed(2)} ms, ${figures.serverCpuUsPerRequest?.toFixed(0)} µs CPU/request (server processes), ` +
          `other processes ${figures.otherCpuCores?.toFixed(2)} cores`,
      );
    }
  }
}
