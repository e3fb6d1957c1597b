// CPU cost per call of the steps of POST /v1/authorize, in-process and without HTTP, to explain the HTTP
// figures of platform.mjs: the service-token check, the access decision without and with one credit,
// the plan read, and the credit transaction alone (the plan store's consumeCredits). SQLite in WAL mode over a temporary file, as in production. Bounded: BATCHES
// batches of at most BATCH_LIMIT calls or BATCH_MS each; the median batch is reported.
//   node bench/platform-micro.mjs [--dist <dir>]     (run `npm run build` first)
import { cpuMicrosPerCall } from "./lib/cpu-per-call.mjs";
import { latchkeyInternals, sqliteServices } from "./lib/in-process.mjs";

const BATCHES = 5;
const BATCH_LIMIT = 20_000;
const BATCH_MS = 500;
const AT_ONCE = 6;

const latchkey = await latchkeyInternals();
const { createOrganizationWithOwner, openStores } = latchkey;

const bench = await sqliteServices(latchkey, "platform-micro");
const { services } = bench;
const { organization, owner } = await createOrganizationWithOwner(services, "micro");
await services.plans.change(organization.id, { imageCredits: 1_000_000_000 });
const { key, secret } = await services.keys.create(owner, { name: "caller", permissions: ["images:create"] });
const authorization = `Basic ${Buffer.from(`${key.apiId}:${secret}`).toString("base64")}`;
const { token } = await services.serviceTokens.create("micro");
// The plan store on its own (a second connection to the same file, as the CLI would open).
const stores = await openStores(`sqlite:${bench.file}`);
const period = { periodStart: 0, periodEnd: 8_640_000_000_000 };
const consumption = {
  orgId: organization.id,
  ...period,
  credits: 1,
  allowance: 1e9,
  overages: false,
  hourStart: 0,
};

const cases = {
  "serviceTokens.verify (SQLite read by hash, SHA-256)": () => services.serviceTokens.verify(token),
  "access.decide, images:create, no credits (authenticate + permission)": () =>
    services.access.decide({ authorization, permission: "images:create" }),
  "plans.get (SQLite read of the organization's plan)": () => services.plans.get(organization.id),
  "access.decide, images:create, 1 credit (+ plan read + credit transaction)": () =>
    services.access.decide({ authorization, permission: "images:create", credits: 1 }),
  "plans store consumeCredits (the credit transaction alone)": () => stores.plans.consumeCredits(consumption),
  [`the same, ${AT_ONCE} at once (one batch), per consumption`]: () =>
    Promise.all(Array.from({ length: AT_ONCE }, () => stores.plans.consumeCredits(consumption))),
};
// Cases that make AT_ONCE calls per run: their figure is per call.
const perCall = (name) => (name.includes(" at once ") ? AT_ONCE : 1);

const timeCase = (run) => cpuMicrosPerCall(run, { batches: BATCHES, limit: BATCH_LIMIT, ms: BATCH_MS });

try {
  process.stdout.write(`| operation | CPU µs per call (median of ${BATCHES} batches) |\n| --- | ---: |\n`);
  for (const [name, run] of Object.entries(cases)) {
    process.stdout.write(`| ${name} | ${((await timeCase(run)) / perCall(name)).toFixed(1)} |\n`);
  }
} finally {
  await stores.close();
  await bench.close();
}
