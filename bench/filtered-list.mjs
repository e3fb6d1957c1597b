// What the list's latchkey filters cost at scale: one organization with 100,000 keys (its quota raised
// by the operator), each with three metadata members, listed through the key service (what
// GET /v1/api-keys runs) with metadata[...] and name_prefix filters, on SQLite and on PostgreSQL. Each
// case is a first page of 100 (or a later page, where said), timed as the median and p95 of its calls,
// with the unfiltered first page measured in the same run as the baseline.
//   node bench/filtered-list.mjs [--dist <dir>] [--keys 100000] [--calls 30] [--no-postgres]
//     (run `npm run build` first; PostgreSQL from LATCHKEY_BENCH_POSTGRES_URL, default
//     postgres://postgres@127.0.0.1:5432/test, in a schema of its own that is dropped at the end)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { createBenchSchema } from "./lib/postgres-schema.mjs";
import { internalsOf } from "./lib/in-process.mjs";

const { values } = parseArgs({
  options: {
    dist: { type: "string" },
    keys: { type: "string", default: "100000" },
    calls: { type: "string", default: "30" },
    "no-postgres": { type: "boolean", default: false },
  },
});
const KEYS = Number(values.keys);
const CALLS = Number(values.calls);
const dist = resolve(values.dist ?? new URL("../dist", import.meta.url).pathname);
const latchkey = await internalsOf(dist);
const { createServices, loadConfig, createOrganizationWithOwner, newApiId, newKeyId, recordToRow } = latchkey;

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const TEAMS = 100;

/**
 * Key `i`: a name `svc-000123`, three metadata members: a team (1 %), an env (50 %), a customer (one key).
 * @returns {import("../src/store/key-store.js").ApiKeyRecord}
 */
function keyRecord(orgId, i) {
  return {
    id: newKeyId(),
    orgId,
    apiId: newApiId(),
    secretHash: "ab".repeat(32),
    secretScheme: "server",
    name: `svc-${String(i).padStart(6, "0")}`,
    description: null,
    enabled: i % 10 !== 0,
    permissions: i % 3 === 0 ? ["images:create", "images:read"] : ["images:read"],
    allFuturePermissions: false,
    createdAt: T0 + i,
    updatedAt: T0 + i,
    lastUsedAt: null,
    leakedAt: null,
    allowedCidrs: null,
    expiresAt: null,
    previousSecretHash: null,
    previousSecretScheme: "server",
    previousSecretExpiresAt: null,
    metadata: { team: `team-${i % TEAMS}`, env: i % 2 === 0 ? "prod" : "dev", customer: `cust-${i}` },
  };
}

/** Rows of `count` keys, in batches, as the store writes them (key-rows.ts), plus their metadata rows. */
function* batches(orgId, count, size) {
  for (let start = 0; start < count; start += size) {
    const keys = [];
    for (let i = start; i < Math.min(count, start + size); i++) keys.push(keyRecord(orgId, i));
    yield {
      keys: keys.map(recordToRow),
      metadata: keys.flatMap((key) =>
        Object.entries(key.metadata ?? {}).map(([name, value]) => ({
          key_id: key.id,
          org_id: orgId,
          name,
          value,
          created_at: key.createdAt,
        })),
      ),
    };
  }
}

const COLUMNS = Object.keys(recordToRow(keyRecord("org_x", 0)));

async function fillSqlite(file, orgId) {
  const db = new Database(file);
  db.pragma("busy_timeout = 5000");
  const insertKey = db.prepare(
    `insert into api_keys (${COLUMNS.join(", ")}) values (${COLUMNS.map((c) => `@${c}`).join(", ")})`,
  );
  const insertMember = db.prepare(
    "insert into key_metadata (key_id, org_id, name, value, created_at) " +
      "values (@key_id, @org_id, @name, @value, @created_at)",
  );
  const fill = db.transaction(() => {
    for (const batch of batches(orgId, KEYS, 1000)) {
      for (const row of batch.keys) insertKey.run(row);
      for (const row of batch.metadata) insertMember.run(row);
    }
    db.prepare("update organizations set key_count = key_count + ? where id = ?").run(KEYS, orgId);
  });
  fill();
  db.close();
}

async function fillPostgres(url, orgId) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const insert = async (table, columns, rows) => {
    const params = [];
    const tuples = rows.map((row) => `(${columns.map((c) => `$${params.push(row[c])}`).join(", ")})`);
    await client.query(`insert into ${table} (${columns.join(", ")}) values ${tuples.join(", ")}`, params);
  };
  try {
    for (const batch of batches(orgId, KEYS, 1000)) {
      await insert("api_keys", COLUMNS, batch.keys);
      for (let i = 0; i < batch.metadata.length; i += 1000) {
        await insert(
          "key_metadata",
          ["key_id", "org_id", "name", "value", "created_at"],
          batch.metadata.slice(i, i + 1000),
        );
      }
    }
    await client.query("update organizations set key_count = key_count + $1 where id = $2", [KEYS, orgId]);
    // What autovacuum does after a bulk load; done here so the first measured call is not the one before it.
    await client.query("analyze");
  } finally {
    await client.end();
  }
}

/** The cases: a name, the list request, and how many keys the page should hold (a sanity check). */
function cases(middleCursor) {
  const page = (request) => ({ count: 100, includeDisabled: true, withPermission: [], ...request });
  return [
    ["no filter (baseline)", page({}), 100],
    ["metadata[team] (1 % of keys)", page({ withMetadata: { team: "team-37" } }), 100],
    ["metadata[team] + metadata[env] (0.5 %)", page({ withMetadata: { team: "team-38", env: "prod" } }), 100],
    ["metadata[customer] (one key)", page({ withMetadata: { customer: "cust-54321" } }), 1],
    ["metadata[env] (50 %)", page({ withMetadata: { env: "prod" } }), 100],
    [
      "metadata[team], a page in the middle",
      page({ withMetadata: { team: "team-37" }, pageStart: middleCursor }),
      100,
    ],
    ["metadata[team] matching nothing", page({ withMetadata: { team: "team-none" } }), 0],
    ["name_prefix (100 keys)", page({ namePrefix: "svc-0421" }), 100],
    ["name_prefix (one key)", page({ namePrefix: "svc-054321" }), 1],
    ["name_prefix (10 % of keys)", page({ namePrefix: "svc-01" }), 100],
    ["name_prefix (every key)", page({ namePrefix: "svc-" }), 100],
    [
      "metadata[team] + name_prefix + with_permission, enabled only",
      page({
        withMetadata: { team: "team-37" },
        namePrefix: "svc-0",
        withPermission: ["images:create"],
        includeDisabled: false,
      }),
      100,
    ],
  ];
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function measure(label, databaseUrl, fill, cleanup) {
  const services = await createServices(
    loadConfig({ LATCHKEY_DATABASE_URL: databaseUrl, LATCHKEY_LOG_LEVEL: "warn", LATCHKEY_BOOTSTRAP: "off" }),
  );
  try {
    const { organization, owner } = await createOrganizationWithOwner(services, "bench");
    // The operator's raise (`latchkey org limits --max-keys`), which 100,000 keys need.
    await services.store.setMaxKeys(organization.id, KEYS + 1000);
    const started = performance.now();
    await fill(organization.id);
    const loadSeconds = (performance.now() - started) / 1000;
    const caller = await services.store.findKey(organization.id, owner.id);
    if (!caller) throw new Error("bench: the owner key is not found");
    const middle = await services.keys.list(caller, {
      count: 100,
      includeDisabled: true,
      withPermission: [],
      withMetadata: { team: "team-37" },
    });
    let cursor = middle.nextPageStart;
    for (let i = 0; i < 4 && cursor; i++) {
      cursor = (
        await services.keys.list(caller, {
          count: 100,
          includeDisabled: true,
          withPermission: [],
          withMetadata: { team: "team-37" },
          pageStart: cursor,
        })
      ).nextPageStart;
    }
    const rows = [];
    for (const [name, request, expected] of cases(cursor)) {
      const first = await services.keys.list(caller, request);
      if (first.keys.length !== expected) {
        throw new Error(`${label} ${name}: ${first.keys.length} keys, expected ${expected}`);
      }
      const times = [];
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now();
        await services.keys.list(caller, request);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      rows.push({ name, median: quantile(times, 0.5), p95: quantile(times, 0.95) });
    }
    const base = rows[0]?.median ?? NaN;
    process.stdout.write(
      `\n${label}: ${KEYS.toLocaleString("en")} keys in one organization, loaded in ${loadSeconds.toFixed(1)} s; ` +
        `${CALLS} calls per case\n\n| case | median ms | p95 ms | vs no filter |\n| --- | ---: | ---: | ---: |\n` +
        rows
          .map(
            (r) =>
              `| ${r.name} | ${r.median.toFixed(2)} | ${r.p95.toFixed(2)} | ${(r.median / base).toFixed(2)} |`,
          )
          .join("\n") +
        "\n",
    );
  } finally {
    await services.lastUse.flush();
    await services.limiter.close();
    await services.closeDatabase();
    await cleanup();
  }
}

const directory = mkdtempSync(join(tmpdir(), "latchkey-filtered-list-"));
const file = join(directory, "latchkey.db");
await measure(
  "SQLite",
  `sqlite:${file}`,
  (orgId) => fillSqlite(file, orgId),
  async () => rmSync(directory, { recursive: true, force: true }),
);

if (!values["no-postgres"]) {
  const base = process.env.LATCHKEY_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const schema = await createBenchSchema(base);
  await measure("PostgreSQL", schema.url, (orgId) => fillPostgres(schema.url, orgId), schema.drop);
}
