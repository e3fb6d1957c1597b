// Medians and ratios of interleaved rounds: on a noisy shared machine, the median of a few rounds and a
// ratio against a baseline measured in the same run are the figures worth comparing between runs.

export function median(values) {
  const sorted = values.filter((v) => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Median of every per-round figure of one target. */
export function summarize(rounds) {
  const of = (field) => median(rounds.map((round) => round[field]));
  return {
    requestsPerSecond: of("requestsPerSecond"),
    p50Ms: of("p50Ms"),
    p99Ms: of("p99Ms"),
    serverCpuUsPerRequest: of("serverCpuUsPerRequest"),
    serverCpuUtilization: of("serverCpuUtilization"),
    loadGeneratorCpuUtilization: of("loadGeneratorCpuUtilization"),
    otherCpuCores: of("otherCpuCores"),
    bytesPerResponse: of("bytesPerResponse"),
  };
}

/** Requests/s of each round divided by the baseline's of the same round. */
export function perRoundRatios(rounds, baselineRounds) {
  return rounds.map((round, i) => round.requestsPerSecond / baselineRounds[i].requestsPerSecond);
}
