// Per-operation CPU costs of the hot path of GET /v1/api-keys/{id}, in-process and without HTTP, to explain
// the HTTP figures of run.mjs: Kysely queries against the same SQL run on prepared better-sqlite3
// statements, hashing, the rate limiter, serialization. Bounded: each case runs at most
// BATCH_LIMIT iterations or BATCH_MS per batch, for BATCHES batches; the median batch is reported.
//   node bench/micro.mjs [--dist <dir>]     (run `npm run build` first)
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { cpuMicrosPerCall } from "./lib/cpu-per-call.mjs";
import { latchkeyInternals, sqliteServices } from "./lib/in-process.mjs";

const BATCHES = 5;
const BATCH_LIMIT = 50_000;
const BATCH_MS = 1000;

const latchkey = await latchkeyInternals();
const { createOrganizationWithOwner, authenticate, toKeyResponse, KeyRecord, rowToRecord } = latchkey;
// fast-json-stringify is what Fastify compiles a response schema with.
const fastJson = createRequire(import.meta.resolve("fastify"))("fast-json-stringify");

const bench = await sqliteServices(latchkey, "micro");
const { services, file } = bench;
const { store, hasher, rateLimit } = services;
const { organization, owner, secret } = await createOrganizationWithOwner(services, "bench");
await store.setQuota(organization.id, "api-key:read", 1e9);
const header = `Basic ${Buffer.from(`${owner.apiId}:${secret}`).toString("base64")}`;

// A second connection to the same file with the production pragmas, for the raw-statement cases.
const raw = new SQLite(file);
raw.pragma("journal_mode = WAL");
raw.pragma("synchronous = NORMAL");
const byApiIdSql = 'select * from "api_keys" where "api_id" = ?';
const byIdSql = 'select * from "api_keys" where "id" = ? and "org_id" = ?';
const byApiId = raw.prepare(byApiIdSql);
const byId = raw.prepare(byIdSql);
// Kysely over the raw connection, with and without a cache of prepared statements keyed by SQL text:
// the difference is the prepare; the rest over a bare prepared statement is Kysely's own work.
const statements = new Map();
const cachingDatabase = {
  close: () => {},
  prepare: (sql) => statements.get(sql) ?? statements.set(sql, raw.prepare(sql)).get(sql),
};
const kysely = new Kysely({
  dialect: new SqliteDialect({ database: { close: () => {}, prepare: (sql) => raw.prepare(sql) } }),
});
const kyselyCached = new Kysely({ dialect: new SqliteDialect({ database: cachingDatabase }) });
const selectByApiId = (db) =>
  db.selectFrom("api_keys").selectAll().where("api_id", "=", owner.apiId).executeTakeFirst();
const serialize = fastJson(KeyRecord);
const record = toKeyResponse(owner, Date.now());

const cases = {
  "store.findKeyByApiId (the build in dist/)": () => store.findKeyByApiId(owner.apiId),
  "store.findKey (the build in dist/)": () => store.findKey(owner.orgId, owner.id),
  "kysely select by api_id, built and compiled per call": () => selectByApiId(kysely),
  "kysely select by api_id, statement cache": () => selectByApiId(kyselyCached),
  "better-sqlite3 prepare + all per call (Kysely's driver)": () => raw.prepare(byApiIdSql).all([owner.apiId]),
  "better-sqlite3 prepared statement .all (as Kysely's driver runs it)": () => byApiId.all([owner.apiId]),
  "better-sqlite3 prepared statement .get": () => byApiId.get(owner.apiId),
  "better-sqlite3 prepared .get + rowToRecord": () =>
    rowToRecord(/** @type {any} */ (byApiId.get(owner.apiId))),
  "better-sqlite3 prepared .get by id + org": () => byId.get(owner.id, owner.orgId),
  "hasher.matches (SHA-256 + timingSafeEqual)": () => hasher.matches(secret, owner.secretHash),
  "authenticate (parse + store read + hash)": () => authenticate(header, store, hasher, { now: Date.now() }),
  "rateLimit.consume (overrides cached)": () => rateLimit.consume(owner.orgId, "api-key:read"),
  toKeyResponse: () => toKeyResponse(owner, Date.now()),
  "fast-json-stringify KeyRecord": () => serialize(record),
  "JSON.stringify key record": () => JSON.stringify(record),
  "randomUUID (request id)": () => randomUUID(),
};

const timeCase = (run) => cpuMicrosPerCall(run, { batches: BATCHES, limit: BATCH_LIMIT, ms: BATCH_MS });

try {
  process.stdout.write(`| operation | CPU µs per call (median of ${BATCHES} batches) |\n| --- | ---: |\n`);
  for (const [name, run] of Object.entries(cases)) {
    process.stdout.write(`| ${name} | ${(await timeCase(run)).toFixed(2)} |\n`);
  }
} finally {
  await kysely.destroy();
  await kyselyCached.destroy();
  raw.close();
  await bench.close();
}
