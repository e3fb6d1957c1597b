// What stacked windows cost: one access decision (POST /v1/authorize's work, in-process, no HTTP) that
// counts against a group of one window, and against a group of three (1 s, 1 h, 1 day), on the default
// configuration (SQLite and the in-memory limiter); with `--redis`, also the Redis limiter's one
// script per decision over one and three windows, in Redis' own CPU time on a private redis-server,
// and the CPU time this process spends per such decision (the node's side: the call and its reply).
// `--dist` may name an older build: before groups kept one log, each window had its own (the
// limiter's `consumeWindows(windows, cost)`), and the script is called as that build calls it.
// Batches alternate between the two cases so that a change of the machine's load hits both alike;
// the median batch of each is reported. Bounded: BATCHES x 2 batches of at most BATCH_LIMIT calls or
// BATCH_MS each.
//   node bench/stacked-windows.mjs [--dist <dir>] [--redis]     (run `npm run build` first)
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { cpuMicrosPerCall } from "./lib/cpu-per-call.mjs";
import { internalsOf, sqliteServices } from "./lib/in-process.mjs";
import { privateRedis } from "./lib/private-redis.mjs";
import { median } from "./lib/stats.mjs";

const BATCHES = 7;
const BATCH_LIMIT = 20_000;
const BATCH_MS = 500;
const { values } = parseArgs({
  options: { dist: { type: "string" }, redis: { type: "boolean" } },
  strict: false,
});

const latchkey = await internalsOf(
  typeof values.dist === "string" ? values.dist : new URL("../dist", import.meta.url).pathname,
);
const { createOrganizationWithOwner } = latchkey;
const bench = await sqliteServices(latchkey, "stacked-windows");
const { services } = bench;
const { owner } = await createOrganizationWithOwner(services, "stacked");
const { key, secret } = await services.keys.create(owner, { name: "caller", permissions: ["images:create"] });
const authorization = `Basic ${Buffer.from(`${key.apiId}:${secret}`).toString("base64")}`;
// Quotas no burst reaches: every decision is an admission, the path a request takes most.
const one = [{ quota: 1e9, windowSeconds: 60 }];
const three = [
  { quota: 1e9, windowSeconds: 1 },
  { quota: 1e9, windowSeconds: 3600 },
  { quota: 1e9, windowSeconds: 86_400 },
];
await services.groups.put("bench-one", { policies: one, per: "organization" }, "bench");
await services.groups.put("bench-three", { policies: three, per: "organization" }, "bench");
const decide = (group) => () => services.access.decide({ authorization, permission: "images:create", group });

/** Alternating batches of `a` and `b`, each timed by `time`; the median of each. */
async function alternate(a, b, time) {
  /** @type {number[]} */
  const timesA = [];
  /** @type {number[]} */
  const timesB = [];
  for (let batch = 0; batch < BATCHES; batch++) {
    timesA.push(await time(a));
    timesB.push(await time(b));
  }
  return [median(timesA), median(timesB)];
}

const cpu = (run) => cpuMicrosPerCall(run, { batches: 1, limit: BATCH_LIMIT, ms: BATCH_MS });
const row = (name, a, b) =>
  process.stdout.write(
    `| ${name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(((b - a) / a) * 100).toFixed(1)}% |\n`,
  );

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");
process.stdout.write(`load average at start: ${load()}\n`);
try {
  process.stdout.write(
    "| decision | one window | three windows | difference |\n| --- | ---: | ---: | ---: |\n",
  );
  // Warm-up: the JIT, the key cache, the groups' catalog.
  await cpu(decide("bench-one"));
  await cpu(decide("bench-three"));
  const [accessOne, accessThree] = await alternate(decide("bench-one"), decide("bench-three"), cpu);
  row("access.decide with a group, SQLite + memory (CPU µs per call)", accessOne, accessThree);

  if (values.redis) {
    const { openRedis, waitUntilReady, createRedisRateLimiter } = latchkey;
    const server = await privateRedis();
    const redis = openRedis(server.url);
    await waitUntilReady(redis, 2000);
    const limiter = createRedisRateLimiter(redis);
    const prefix = `lk-bench-${randomUUID()}:{org_bench}`;
    // One log per group: consumeWindows(log, windows, cost). A build of one log per window takes
    // (windows, cost), each window naming its own log.
    const perWindowLogs = limiter.consumeWindows.length === 3;
    const decisionOf = (group, policies) => {
      const windows = policies.map((p) => ({
        bucket: `${prefix}:${group}/${p.windowSeconds}`,
        quota: 1e9,
        windowMs: p.windowSeconds * 1000,
      }));
      const log = `${prefix}:${group}`;
      if (!perWindowLogs) return () => limiter.consumeWindows(log, windows, 1);
      // @ts-expect-error -- an older build's consumeWindows(windows, cost), for --dist
      return () => limiter.consumeWindows(windows, 1);
    };
    const [decideOne, decideThree] = [decisionOf("one", one), decisionOf("three", three)];
    /**
     * Redis' own CPU µs per script call over one batch (INFO commandstats of this private server):
     * what a shard spends per decision, which the machine's load does not inflate as it does wall time.
     */
    const scriptMicros = async (run) => {
      await redis.config("RESETSTAT");
      const started = performance.now();
      let count = 0;
      while (count < 2000 && performance.now() - started < BATCH_MS) {
        await run();
        count++;
      }
      const stats = await redis.info("commandstats");
      return Number(/cmdstat_evalsha:.*usec_per_call=([\d.]+)/.exec(stats)?.[1] ?? NaN);
    };
    await scriptMicros(decideThree);
    const [redisOne, redisThree] = await alternate(decideOne, decideThree, scriptMicros);
    row("Redis script per decision (Redis CPU µs per call, private redis-server)", redisOne, redisThree);
    const [nodeOne, nodeThree] = await alternate(decideOne, decideThree, cpu);
    row("Redis limiter decision, this process (CPU µs per call)", nodeOne, nodeThree);
    await limiter.close();
    server.stop();
  }
} finally {
  await bench.close();
  process.stdout.write(`load average at end: ${load()}\n`);
}
