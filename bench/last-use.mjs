// What recording last use costs the hot path: CPU µs per call of `lastUse.touch(key)` in its steady
// state (the key was written within the minute, so the call only consults the per-node map), as a
// ratio against `authenticate`, the step it follows, measured in the same run. Bounded like micro.mjs.
//   node bench/last-use.mjs [--dist <dir>]     (run `npm run build` first)
import { cpuMicrosPerCall } from "./lib/cpu-per-call.mjs";
import { latchkeyInternals, sqliteServices } from "./lib/in-process.mjs";

const BATCHES = 5;
const BATCH_LIMIT = 200_000;
const BATCH_MS = 1000;

const latchkey = await latchkeyInternals();
const { createOrganizationWithOwner, authenticate } = latchkey;

const bench = await sqliteServices(latchkey, "last-use");
const { services } = bench;
const { store, hasher, lastUse } = services;
const { owner, secret } = await createOrganizationWithOwner(services, "bench");
const header = `Basic ${Buffer.from(`${owner.apiId}:${secret}`).toString("base64")}`;
// The first touch writes; every later one within the minute is the steady state measured here.
lastUse.touch(owner);
await lastUse.flush();
const used = await store.findKey(owner.orgId, owner.id);
if (!used) throw new Error("bench: the owner key is not found");

const timeCase = (run) => cpuMicrosPerCall(run, { batches: BATCHES, limit: BATCH_LIMIT, ms: BATCH_MS });

try {
  const baseline = await timeCase(() => authenticate(header, store, hasher, { now: Date.now() }));
  const touch = await timeCase(() => lastUse.touch(used));
  process.stdout.write(
    `| operation | CPU µs per call (median of ${BATCHES} batches) | vs authenticate |\n| --- | ---: | ---: |\n` +
      `| authenticate (parse + store read + hash) | ${baseline.toFixed(3)} | 1.000 |\n` +
      `| lastUse.touch, written within the minute | ${touch.toFixed(3)} | ${(touch / baseline).toFixed(3)} |\n`,
  );
} finally {
  await bench.close();
}
