// What each further window of a stacked group costs inside the Redis script, part by part, in Redis'
// own CPU (INFO commandstats, µs per EVALSHA) on a private redis-server holding a log of 20,000 slots:
// scripts that do one part only, none of them a decision. With one log per group
// (src/ratelimit/redis-sliding-log.ts) a window beyond the longest needs its quota and length in, three
// numbers out, a ZCOUNT (its count) and a ZRANGE by rank (its oldest slot); the parts below price two
// such windows (a group of three against a group of one). Batches of the variants alternate; the median
// batch of each is reported.
//   node bench/script-window-cost.mjs
import { loadavg } from "node:os";
import { Redis } from "ioredis";
import { privateRedis } from "./lib/private-redis.mjs";
import { median } from "./lib/stats.mjs";

const BATCHES = 7;
const CALLS = 3000;
const SLOTS = 20_000;

/** A script that repeats `command` for each of `n` extra windows, returning nothing of note. */
const extraWindows = (n, command) => `
local total = 0
for i = 1, ${n} do
  ${command}
end
return total`;

/** ARGV and reply of a decision over n windows, without any Redis command (a one- and a three-window shape). */
const shapeOnly = `
local n = tonumber(ARGV[1])
local out = {1, 2, '', 0, 0}
for i = 1, n do
  table.insert(out, tonumber(ARGV[3 + 2 * i]) - 1)
  table.insert(out, tonumber(ARGV[4 + 2 * i]) - 1)
  table.insert(out, -1)
end
return out`;

const oneWindowArgs = ["1", "1", "member", "", 1e9, 60_000];
const threeWindowArgs = ["3", "1", "member", "", 1e9, 1000, 1e9, 3_600_000, 1e9, 86_400_000];

const server = await privateRedis();
const redis = new Redis(server.url);
try {
  for (let start = 0; start < SLOTS; start += 1000) {
    const slots = [];
    for (let i = start; i < start + 1000; i++) slots.push(i, `m${i}`);
    await redis.zadd("log", ...slots);
  }
  const variants = {
    "nothing (the script call itself)": { script: extraWindows(0, ""), args: [] },
    "two ZCOUNTs (the count of two windows)": {
      script: extraWindows(2, "total = total + redis.call('ZCOUNT', KEYS[1], '-inf', 15000 - i)"),
      args: [],
    },
    "two ZRANGEs by rank (the oldest slot of two windows)": {
      script: extraWindows(
        2,
        "total = total + tonumber(redis.call('ZRANGE', KEYS[1], 15000 - i, 15000 - i, 'WITHSCORES')[2])",
      ),
      args: [],
    },
    "arguments and answer of one window": { script: shapeOnly, args: oneWindowArgs },
    "arguments and answer of three windows": { script: shapeOnly, args: threeWindowArgs },
  };
  const shas = {};
  for (const [name, { script }] of Object.entries(variants)) shas[name] = await redis.script("LOAD", script);
  const micros = async (name) => {
    await redis.config("RESETSTAT");
    for (let i = 0; i < CALLS; i++) await redis.evalsha(shas[name], 1, "log", ...variants[name].args);
    const stats = await redis.info("commandstats");
    return Number(/cmdstat_evalsha:.*usec_per_call=([\d.]+)/.exec(stats)?.[1] ?? NaN);
  };
  const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (let batch = 0; batch < BATCHES; batch++) {
    for (const name of Object.keys(variants)) times[name].push(await micros(name));
  }
  process.stdout.write(
    `load average: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(", ")}\n`,
  );
  process.stdout.write("| script | Redis CPU µs per call |\n| --- | ---: |\n");
  for (const [name, list] of Object.entries(times)) {
    process.stdout.write(`| ${name} | ${median(list).toFixed(2)} |\n`);
  }
} finally {
  redis.disconnect();
  server.stop();
}
