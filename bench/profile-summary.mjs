// Summarizes a V8 .cpuprofile (from `node --cpu-prof`, e.g. `npm run bench -- --cpu-prof`): busy time by
// package, and the top functions by self and by inclusive time. Idle time is left out of every percentage.
//   node bench/profile-summary.mjs <file.cpuprofile> [--top 25]
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";

const PSEUDO = new Set(["(root)", "(program)", "(idle)", "(garbage collector)"]);

/** Where a frame's code comes from: an npm package, Node core, latchkey's dist/, or the bench itself. */
function origin(url) {
  if (!url) return null;
  const at = url.lastIndexOf("/node_modules/");
  if (at >= 0) {
    const parts = url.slice(at + "/node_modules/".length).split("/");
    return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith("node:")) return "node core";
  if (url.includes("/dist/")) return "latchkey (dist)";
  if (url.includes("/bench/")) return "bench";
  return basename(url);
}

function label(frame) {
  const name = frame.functionName || "(anonymous)";
  if (!frame.url) return name;
  const file = frame.url.includes("/node_modules/")
    ? frame.url.slice(frame.url.lastIndexOf("/node_modules/") + 14)
    : frame.url.replace(/^.*\/(dist|bench)\//, "$1/").replace(/^file:\/\//, "");
  return `${name} ${file}:${frame.lineNumber + 1}`;
}

/** Reads a profile and returns { busyMs, idleMs, byOrigin, bySelf, byInclusive } (times in ms). */
export function analyzeProfile(file) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Each sample lasts until the next one; times are in microseconds.
  const selfUs = new Map();
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    const duration = timeDeltas[i + 1] ?? 0;
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + duration);
  }

  // Native frames (no url, e.g. better-sqlite3's C++ prepare) count for the nearest caller with a url.
  const originOf = (id) => {
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const frame = nodes.get(at).callFrame;
      if (PSEUDO.has(frame.functionName) && !frame.url) return frame.functionName;
      const found = origin(frame.url);
      if (found) return found;
    }
    return "(native)";
  };

  const byOrigin = new Map();
  const bySelf = new Map();
  const byInclusive = new Map();
  let idleUs = 0;
  let busyUs = 0;
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id).callFrame;
    if (frame.functionName === "(idle)") {
      idleUs += us;
      continue;
    }
    busyUs += us;
    add(byOrigin, originOf(id), us);
    add(bySelf, label(frame), us);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const key = label(nodes.get(at).callFrame);
      if (key === "(root)" || seen.has(key)) continue;
      seen.add(key);
      add(byInclusive, key, us);
    }
  }
  const sorted = (map) => [...map].sort((a, b) => b[1] - a[1]).map(([key, us]) => [key, us / 1000]);
  return {
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    byOrigin: sorted(byOrigin),
    bySelf: sorted(bySelf),
    byInclusive: sorted(byInclusive),
  };
}

export function summarizeProfile(file, top = 25) {
  const { busyMs, idleMs, byOrigin, bySelf, byInclusive } = analyzeProfile(file);
  const share = (ms) => `${((100 * ms) / busyMs).toFixed(1).padStart(5)}%`;
  const table = (rows) => rows.map(([key, ms]) => `  ${share(ms)}  ${key}`).join("\n");
  return [
    `busy ${(busyMs / 1000).toFixed(1)} s, idle ${(idleMs / 1000).toFixed(1)} s (percentages are of busy time)`,
    "by origin (self time; native code counted for its caller):",
    table(byOrigin.slice(0, 15)),
    `top ${top} functions by self time:`,
    table(bySelf.slice(0, top)),
    `top ${top} functions by inclusive time (synchronous stacks only: async callers are not on the stack):`,
    table(byInclusive.slice(0, top)),
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, flag, count] = process.argv.slice(2);
  if (!file) {
    process.stderr.write("usage: node bench/profile-summary.mjs <file.cpuprofile> [--top 25]\n");
    process.exit(1);
  }
  process.stdout.write(`${summarizeProfile(file, flag === "--top" ? Number(count) : 25)}\n`);
}
