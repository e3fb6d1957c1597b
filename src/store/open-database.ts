import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import type { Freshness } from "../cache/freshness.js";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import type { AuditStore } from "./audit-store.js";
import type { KeyStore } from "./key-store.js";
import { createKyselyAuditStore } from "./kysely-audit-store.js";
import { createKyselyKeyStore } from "./kysely-key-store.js";
import { createKyselyPlanStore } from "./kysely-plan-store.js";
import { createKyselyResourceStore } from "./kysely-resource-store.js";
import { createKyselyServiceTokenStore } from "./kysely-service-token-store.js";
import { migrateToLatest } from "./migrations/index.js";
import type { Database } from "./schema.js";
import type { PlanStore } from "./plan-store.js";
import type { ResourceStore } from "./resource-store.js";
import type { ServiceTokenStore } from "./service-token-store.js";
import { withExactCaches } from "./cached-stores.js";
import { createSqliteFreshness } from "./sqlite-freshness.js";
import { withStatementCache } from "./sqlite-statement-cache.js";

const INT8_OID = 20;

function openSqlite(path: string): {
  db: Kysely<Database>;
  freshness: Freshness;
  connection: SQLite.Database;
} {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const database = new SQLite(path);
  database.pragma("journal_mode = WAL");
  // The CLI writes overrides from another process; wait for its lock instead of failing.
  database.pragma("busy_timeout = 5000");
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  const freshness = createSqliteFreshness(database);
  const cached = withStatementCache(database, 256, freshness.noteWrite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cached }) });
  return { db, freshness, connection: database };
}

function openPostgres(url: string): { db: Kysely<Database>; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A hung or unreachable PostgreSQL must fail requests within seconds, not hold them forever.
    connectionTimeoutMillis: 3_000,
    statement_timeout: 5_000,
    query_timeout: 6_000,
    // Epoch milliseconds live in bigint columns; they fit a JavaScript number exactly.
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool };
}

/** The schema unqualified tables go to (the first existing one of `search_path`, usually `public`). */
async function currentSchema(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error("PostgreSQL search_path names no existing schema; create it first.");
  return schema;
}

/** Every store over one database connection; `keys.close()` (or `close()`) releases it. */
export interface Stores {
  keys: KeyStore;
  plans: PlanStore;
  serviceTokens: ServiceTokenStore;
  /** Reads the audit trail (each store writes its own entries, in the change's transaction). */
  audit: AuditStore;
  /** Proxies, storage destinations and OG configurations. */
  resources: ResourceStore;
  /** Which database this is, for the metrics. */
  dialect: "sqlite" | "postgres";
  /** PostgreSQL pool counts for the metrics; undefined on SQLite (one connection, no pool). */
  poolStats: (() => { total: number; idle: number; waiting: number }) | undefined;
  /**
   * How the caches in front of the stores are kept exact; absent where there is none (PostgreSQL):
   * then nothing is cached. The HTTP layer calls `beginRequest` at the start of every request.
   */
  freshness?: Freshness;
  /** Entries held per cache (empty without caches). */
  cacheSizes(): Record<string, number>;
  close(): Promise<void>;
}

/**
 * Opens the database named by a URL (`sqlite:<path>`, `sqlite::memory:` or `postgres://...`),
 * migrates it to the latest schema, and builds every store over it.
 */
export async function openStores(databaseUrl: string): Promise<Stores> {
  const isPostgres = /^postgres(ql)?:\/\//.test(databaseUrl);
  if (!isPostgres && !databaseUrl.startsWith("sqlite:")) {
    throw new Error(`Unsupported database URL "${databaseUrl}": use sqlite:<path> or postgres://...`);
  }
  const postgres = isPostgres ? openPostgres(databaseUrl) : undefined;
  const { db, freshness, connection } = postgres
    ? { db: postgres.db, freshness: undefined, connection: undefined }
    : openSqlite(databaseUrl.slice("sqlite:".length));
  try {
    await migrateToLatest(db as Kysely<unknown>, isPostgres ? await currentSchema(db) : undefined);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const stores = {
    keys: createKyselyKeyStore({ db, rowLocks: isPostgres }),
    plans: createKyselyPlanStore(db, { postgres: isPostgres, sqlite: connection }),
    serviceTokens: createKyselyServiceTokenStore(db),
    audit: createKyselyAuditStore(db),
    resources: createKyselyResourceStore(db, isPostgres),
    dialect: postgres ? ("postgres" as const) : ("sqlite" as const),
    poolStats: postgres
      ? () => ({
          total: postgres.pool.totalCount,
          idle: postgres.pool.idleCount,
          waiting: postgres.pool.waitingCount,
        })
      : undefined,
  };
  const close = () => stores.keys.close();
  if (!freshness) return { ...stores, cacheSizes: () => ({}), close };
  return { ...stores, ...withExactCaches(stores, freshness), freshness, close };
}

/** Opens the database and returns only the key store (operator commands that need nothing else). */
export async function openKeyStore(databaseUrl: string): Promise<KeyStore> {
  return (await openStores(databaseUrl)).keys;
}
