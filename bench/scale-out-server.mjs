// latchkey as one node of a scaled-out deployment: buildApp over PostgreSQL (a fresh schema, dropped
// on exit) and the Redis limiter, logging as servers/ready.mjs's benchLogging says, with one organization, its owner key and the key
// the benchmark reads. Prints the ready line of bench/servers/ready.mjs. Environment: BENCH_DIST,
// SCALE_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test), SCALE_REDIS_URL (default
// redis://127.0.0.1:6379), SCALE_RECORD_CACHE (on or off, default on).
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { createBenchSchema } from "./lib/postgres-schema.mjs";
import {
  authorizeTargets,
  benchLogging,
  printReady,
  seedBenchOrganization,
  stackedGroupTargets,
  stopOnSignal,
} from "./servers/ready.mjs";
import { internalsOf } from "./lib/in-process.mjs";

const dist = resolve(process.env.BENCH_DIST ?? new URL("../dist", import.meta.url).pathname);
const latchkey = await internalsOf(dist);
const { buildApp, loadConfig, createOrganizationWithOwner } = latchkey;
// Round trips, counted in this process only (the bench's own wrapper, not latchkey's code): every
// `pg` Client.query is one round trip to PostgreSQL, every ioredis command one to Redis (ioredis
// pipelines nothing here, so a command is a round trip; the limiter's health PING is counted apart).
const roundTrips = { postgres: 0, redis: 0, redisPing: 0 };
const { Redis } = await import("ioredis");
/** @type {any} */
const clientPrototype = pg.Client.prototype;
const clientQuery = clientPrototype.query;
clientPrototype.query = function countedQuery(...args) {
  roundTrips.postgres++;
  return clientQuery.apply(this, args);
};
const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function countedCommand(command, ...rest) {
  if (command?.name === "ping") roundTrips.redisPing++;
  else roundTrips.redis++;
  return sendCommand.call(this, command, ...rest);
};

const postgresUrl = process.env.SCALE_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const redisUrl = process.env.SCALE_REDIS_URL ?? "redis://127.0.0.1:6379";
const run = randomBytes(6).toString("hex");

const schema = await createBenchSchema(postgresUrl, `lk_bench_${run}`);
const logFile = join(tmpdir(), `latchkey-bench-${run}.log`);
const logging = await benchLogging(logFile);
const config = loadConfig({
  LATCHKEY_DATABASE_URL: schema.url,
  LATCHKEY_REDIS_URL: redisUrl,
  LATCHKEY_REDIS_PREFIX: `lk-bench-${run}`,
  ...logging.env,
  LATCHKEY_BOOTSTRAP: "off",
  // SCALE_RECORD_CACHE=off measures the node without its record cache (every read from PostgreSQL).
  LATCHKEY_RECORD_CACHE: process.env.SCALE_RECORD_CACHE ?? "on",
  HOST: "127.0.0.1",
  PORT: "0",
});
const { app, services } = await buildApp({ config, logStream: logging.logStream });
if (!services.limiter.healthy)
  throw new Error(`Redis at ${redisUrl} does not answer: refusing to bench the fallback`);

const { target, authorization } = await seedBenchOrganization(services, createOrganizationWithOwner);
app.get("/bench/round-trips", async () => roundTrips);
await app.listen({ host: "127.0.0.1", port: 0 });
stopOnSignal(async () => {
  await app.close();
  await schema.drop();
  rmSync(logFile, { force: true });
});
const authorize = await authorizeTargets(services, target, authorization);
const stacked = await stackedGroupTargets(services, authorize.authorize);
printReady(app, {
  "latchkey-pg-redis": { path: `/v1/api-keys/${target.id}`, headers: { authorization } },
  "authorize-pg-redis": authorize.authorize,
  "authorize+credit-pg-redis": authorize["authorize+credit"],
  "authorize-group1-pg-redis": stacked["authorize-group1"],
  "authorize-group3-pg-redis": stacked["authorize-group3"],
});
