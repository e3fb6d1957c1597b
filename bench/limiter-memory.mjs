// Memory of the in-memory limiter per active (organization, group): 100,000 organizations, each
// holding a full default allowance (100 admissions on `api-key:read`, each in its own millisecond: the
// worst case), measured as the growth of the V8 heap plus array buffers after a forced GC; then one
// organization raised to a quota of 1,000,000 and driven far past what a window can hold.
// Run: npm run build && node --expose-gc bench/limiter-memory.mjs [--orgs 100000]
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";

const { values } = parseArgs({ options: { orgs: { type: "string", default: "100000" } } });
const orgs = Number(values.orgs);
const dist = resolve(process.env.BENCH_DIST ?? new URL("../dist", import.meta.url).pathname);
const load = (module) => import(pathToFileURL(join(dist, module)).href);
const { createMemoryRateLimiter } = await load("ratelimit/memory-rate-limiter.js");
const { createManagementRateLimit } = await load("ratelimit/management-rate-limit.js");
if (typeof global.gc !== "function") throw new Error("run with node --expose-gc");

let now = Date.UTC(2026, 10, 24);
const clock = { now: () => now };
const used = () => {
  global.gc();
  global.gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};
const limiter = createMemoryRateLimiter(clock);
// The same path as a request: the management rate limit with default quotas (overrides: none).
const rateLimit = createManagementRateLimit({
  limiter,
  loadLimits: async () => ({ maxKeys: null, quotas: {} }),
  windowSeconds: 60,
  now: clock.now,
});
const orgId = (i) => `org_${String(i).padStart(22, "0")}`;

const before = used();
// Interleaved so every admission of one organization lands in a different millisecond.
for (let round = 0; round < 100; round++) {
  now += 1;
  for (let i = 0; i < orgs; i++) {
    const decision = await rateLimit.consume(orgId(i), "api-key:read");
    if (decision.type !== "allow") throw new Error("unexpected 429");
  }
}
const after = used();
const perBucket = (after - before) / orgs;
console.log(`buckets: ${limiter.size}, admissions held: ${orgs * 100}`);
console.log(
  `memory per active (organization, group) at the default quota (100, full): ${perBucket.toFixed(0)} bytes`,
);

// One organization at a quota of 1,000,000: 100 admissions per millisecond for two windows.
const big = createMemoryRateLimiter(clock);
const bigBefore = used();
let admitted = 0;
for (let ms = 0; ms < 120_000; ms++) {
  now += 1;
  for (let i = 0; i < 20; i++) {
    if ((await big.consume("big:api-key:read", 1_000_000, 60_000)).type === "allow") admitted++;
  }
}
const bigAfter = used();
console.log(
  `quota 1,000,000, 20 requests per ms for 120 s: ${admitted} admitted, ` +
    `${((bigAfter - bigBefore) / 1024).toFixed(0)} KiB held for the bucket (bound: 4 bytes x 60,000 ms, doubled capacity)`,
);
await limiter.close();
await big.close();
