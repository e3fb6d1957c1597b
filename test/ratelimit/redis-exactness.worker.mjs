// One of several processes hammering Redis buckets (see redis-exactness.test.ts). Once connected it
// prints "ready" and reads the common start (epoch ms) from standard input. For each run it waits for
// the run's start (the same instant in every process), keeps `callers` concurrent loops of decisions
// going for `durationMs`, and records the Redis times of its admissions. It prints one JSON line at
// the end. It runs the built limiter (dist/), as a latchkey node would.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";

const [dist, url, callers, runsJson] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(`${dist}/${path}`).href);
const { openRedis, waitUntilReady } = await load("redis/connection.js");
const { evalSlidingLog } = await load("ratelimit/redis-sliding-log.js");

const redis = openRedis(url);
if (!(await waitUntilReady(redis, 5000))) throw new Error(`Redis at ${url} does not answer`);
// Connected: say so, then wait for the common start (epoch ms) on standard input.
process.stdout.write("ready\n");
const [line] = await once(createInterface({ input: process.stdin }), "line");
const start = Number(line);
const me = randomUUID();
let sequence = 0;
const results = [];
for (const { key, quota, windowMs, startOffsetMs, durationMs } of JSON.parse(runsJson)) {
  const startAt = start + startOffsetMs;
  const admitted = [];
  let decisions = 0;
  await sleep(Math.max(0, startAt - Date.now()));
  const stopAt = startAt + durationMs;
  await Promise.all(
    Array.from({ length: Number(callers) }, async () => {
      while (Date.now() < stopAt) {
        const reply = await evalSlidingLog(redis, key, quota, windowMs, `${me}:${++sequence}`);
        decisions++;
        if (reply.admitted) admitted.push(reply.now);
      }
    }),
  );
  results.push({ admitted, decisions });
}
redis.disconnect();
process.stdout.write(`${JSON.stringify(results)}\n`);
