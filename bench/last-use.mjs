// What recording last use costs the hot path: CPU µs per call of `lastUse.touch(key)` in its steady
// state (the key was written within the minute, so the call only consults the per-node map), as a
// ratio against `authenticate`, the step it follows, measured in the same run. Bounded like micro.mjs.
//   node bench/last-use.mjs [--dist <dir>]     (run `npm run build` first)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { cpuMicrosPerCall } from "./lib/cpu-per-call.mjs";

const BATCHES = 5;
const BATCH_LIMIT = 200_000;
const BATCH_MS = 1000;

const { values } = parseArgs({ options: { dist: { type: "string" } } });
const dist = resolve(values.dist ?? new URL("../dist", import.meta.url).pathname);
const load = (module) => import(pathToFileURL(join(dist, module)).href);
const { createServices } = await load("app.js");
const { loadConfig } = await load("config.js");
const { createOrganizationWithOwner } = await load("services/organizations.js");
const { authenticate } = await load("services/authenticate.js");

const directory = mkdtempSync(join(tmpdir(), "latchkey-last-use-"));
const services = await createServices(
  loadConfig({
    LATCHKEY_DATABASE_URL: `sqlite:${join(directory, "latchkey.db")}`,
    LATCHKEY_LOG_LEVEL: "warn",
  }),
);
const { store, hasher, lastUse } = services;
const { owner, secret } = await createOrganizationWithOwner(services, "bench");
const header = `Basic ${Buffer.from(`${owner.apiId}:${secret}`).toString("base64")}`;
// The first touch writes; every later one within the minute is the steady state measured here.
lastUse.touch(owner);
await lastUse.flush();
const used = await store.findKey(owner.orgId, owner.id);

const timeCase = (run) => cpuMicrosPerCall(run, { batches: BATCHES, limit: BATCH_LIMIT, ms: BATCH_MS });

try {
  const baseline = await timeCase(() => authenticate(header, store, hasher));
  const touch = await timeCase(() => lastUse.touch(used));
  process.stdout.write(
    `| operation | CPU µs per call (median of ${BATCHES} batches) | vs authenticate |\n| --- | ---: | ---: |\n` +
      `| authenticate (parse + store read + hash) | ${baseline.toFixed(3)} | 1.000 |\n` +
      `| lastUse.touch, written within the minute | ${touch.toFixed(3)} | ${(touch / baseline).toFixed(3)} |\n`,
  );
} finally {
  await lastUse.flush();
  await store.close();
  await services.limiter.close();
  rmSync(directory, { recursive: true, force: true });
}
