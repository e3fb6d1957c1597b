import { chmodSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import type { Freshness } from "../cache/freshness.js";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import type { AuditStore } from "./audit-store.js";
import type { KeyStore } from "./key-store.js";
import { createKyselyAuditStore } from "./kysely-audit-store.js";
import { createKyselyKeyStore } from "./kysely-key-store.js";
import { createKyselyConsoleStore } from "./kysely-console-store.js";
import { createKyselyOauthStore } from "./kysely-oauth-store.js";
import { createKyselySecretHandoffStore, type SecretHandoffStore } from "./kysely-secret-handoffs.js";
import type { OauthStore } from "./oauth-store.js";
import type { ConsoleStore } from "./console-store.js";
import { createKyselyIdempotencyStore } from "./kysely-idempotency-store.js";
import { createKyselyLeakReportStore } from "./kysely-leak-report-store.js";
import type { LeakReportStore } from "./leak-report-store.js";
import { createKyselySecretHashingStore } from "./kysely-secret-hashing-store.js";
import type { SecretHashingStore } from "./secret-hashing-store.js";
import type { IdempotencyStore } from "./idempotency-store.js";
import { createKyselyPlanStore } from "./kysely-plan-store.js";
import { createKyselyResourceStore } from "./kysely-resource-store.js";
import { createKyselyServiceTokenStore } from "./kysely-service-token-store.js";
import { createKyselyOrganizationStore } from "./kysely-organization-store.js";
import type { OrganizationStore } from "./organization-store.js";
import type { CreditGrantStore } from "./credit-grant-store.js";
import { createKyselyCreditGrantStore } from "./kysely-credit-grants.js";
import { createKyselyWebhookStore } from "./kysely-webhook-store.js";
import type { WebhookStore } from "./webhook-store.js";
import { createKyselyRateLimitGroupStore } from "./kysely-rate-limit-groups.js";
import type { RateLimitGroupStore } from "./rate-limit-group-store.js";
import { migrateToLatest } from "./migrations/index.js";
import { databaseOpenError } from "./database-open-error.js";
import { withoutPassword } from "./database-location.js";
import type { Database } from "./schema.js";
import { withCurrentSchemaIntrospection } from "./current-schema-introspector.js";
import type { PlanStore } from "./plan-store.js";
import type { ResourceStore } from "./resource-store.js";
import type { ServiceTokenStore } from "./service-token-store.js";
import { createKyselyUsageExportStore } from "./kysely-usage-export-store.js";
import type { UsageExportStore } from "./usage-export-store.js";
import { withExactCaches } from "../cache/exact-cache.js";
import { createSqliteFreshness } from "../cache/sqlite-freshness.js";
import { withStatementCache } from "./sqlite-statement-cache.js";
import { withDatabaseFaults } from "./database-fault-dialect.js";
import { POSTGRES, SQLITE } from "./dialect.js";
import { stderrLog, type WarningLog } from "../warning-log.js";

const INT8_OID = 20;

/** The database holds settings that may contain customer credentials: only its owner reads it. */
const PRIVATE_FILE = 0o600;
const PRIVATE_DIRECTORY = 0o700;

/**
 * Runs `create` (synchronous, so nothing else runs meanwhile) under a umask that gives new files no
 * group or other bits: SQLite creates the database, `-wal` and `-shm` files itself, with 0644.
 */
function privately<T>(create: () => T): T {
  let previous: number | undefined;
  try {
    previous = process.umask(0o077);
  } catch {
    // Worker threads may not set the umask; keepPrivate then tightens the files right after.
  }
  try {
    return create();
  } finally {
    if (previous !== undefined) process.umask(previous);
  }
}

/** Tightens a database made by an earlier version to 0600, with its `-wal` and `-shm` files. */
function keepPrivate(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if ((statSync(file).mode & 0o777) !== PRIVATE_FILE) chmodSync(file, PRIVATE_FILE);
    } catch (error) {
      // A file SQLite has not created (yet) is created private; one owned by someone else stays as is.
      if (!["ENOENT", "EPERM"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    }
  }
}

function openSqlite(path: string): {
  db: Kysely<Database>;
  freshness: Freshness;
  connection: SQLite.Database;
} {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIRECTORY });
  const database = privately(() => {
    const opened = new SQLite(path);
    opened.pragma("journal_mode = WAL");
    return opened;
  });
  if (path !== ":memory:") keepPrivate(path);
  // The CLI writes overrides from another process; wait for its lock instead of failing.
  database.pragma("busy_timeout = 5000");
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  const freshness = createSqliteFreshness(database);
  const cached = withStatementCache(database, 256, () => freshness.noteWrite());
  const db = new Kysely<Database>({
    dialect: withDatabaseFaults(new SqliteDialect({ database: cached })),
  });
  return { db, freshness, connection: database };
}

/**
 * A connection PostgreSQL ends (a restart, a failover, `pg_terminate_backend`, `idle_session_timeout`)
 * is an `error` event on its client, and on the pool when the client was idle: without a listener
 * Node ends the process. The pool drops such a client and connects anew on demand; a query that was
 * running on it fails and is answered `503 database_unavailable` (database-errors.ts).
 */
function survivePostgresErrors(pool: pg.Pool, log: WarningLog): void {
  const report = (error: Error & { code?: string }) =>
    log.warn({ code: error.code, reason: error.message }, "PostgreSQL connection lost");
  pool.on("error", report);
  // While checked out a client has no listener of the pool's: one of its own, for its whole life.
  pool.on("connect", (client) => client.on("error", report));
}

function openPostgres(url: string, log: WarningLog): { db: Kysely<Database>; pool: pg.Pool } {
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
        oid === INT8_OID
          ? Number
          : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
    },
  });
  survivePostgresErrors(pool, log);
  const dialect = withCurrentSchemaIntrospection(withDatabaseFaults(new PostgresDialect({ pool })));
  return { db: new Kysely<Database>({ dialect }), pool };
}

/** The schema unqualified tables go to (the first existing one of `search_path`, usually `public`). */
async function currentSchema(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error("PostgreSQL search_path names no existing schema; create it first.");
  return schema;
}

/** Every store over one database connection, which `close()` releases (no store does). */
export interface Stores {
  keys: KeyStore;
  /** Organizations as the provisioning API manages them. */
  organizations: OrganizationStore;
  plans: PlanStore;
  /** Credit grants (top-ups); consumed through `plans.consumeWithGrants`. */
  creditGrants: CreditGrantStore;
  /** Webhook endpoints, the outbox's deliveries and the attempts log. */
  webhooks: WebhookStore;
  /** The platform's rate-limit groups declared through the admin API. */
  groups: RateLimitGroupStore;
  serviceTokens: ServiceTokenStore;
  /** Reads the audit trail (each store writes its own entries, in the change's transaction). */
  audit: AuditStore;
  /** Proxies, storage destinations and OG configurations. */
  resources: ResourceStore;
  /** The first responses of creates sent with an `Idempotency-Key`. */
  idempotency: IdempotencyStore;
  /** Console users, memberships and sessions. */
  console: ConsoleStore;
  /** MCP over OAuth: clients, codes, connections. */
  oauth: OauthStore;
  /** Secrets on their way to the one console page that shows them. */
  secretHandoffs: SecretHandoffStore;
  /** Decisions counted per hour, and the hourly records the usage export reads. */
  usageExport: UsageExportStore;
  /** Secret scanning reports already processed (a replay is answered as before, changing nothing). */
  leakReports: LeakReportStore;
  /** How the servers hash secrets, recorded as each starts (for `keys import`). */
  secretHashing: SecretHashingStore;
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
 * migrates it to the latest schema, and builds every store over it. `log` hears of PostgreSQL
 * connections lost.
 */
export async function openStores(databaseUrl: string, log: WarningLog = stderrLog): Promise<Stores> {
  const isPostgres = /^postgres(ql)?:\/\//.test(databaseUrl);
  if (!isPostgres && !databaseUrl.startsWith("sqlite:")) {
    throw new Error(
      `Unsupported database URL ${withoutPassword(databaseUrl)}: use sqlite:<path> or postgres://...`,
    );
  }
  const postgres = isPostgres ? openPostgres(databaseUrl, log) : undefined;
  const { db, freshness, connection } = postgres
    ? { db: postgres.db, freshness: undefined, connection: undefined }
    : openSqlite(databaseUrl.slice("sqlite:".length));
  const dialect = isPostgres ? POSTGRES : SQLITE;
  try {
    await migrateToLatest(db as Kysely<unknown>, isPostgres ? await currentSchema(db) : undefined);
  } catch (error) {
    await db.destroy();
    throw databaseOpenError(databaseUrl, error);
  }
  const stores = {
    keys: createKyselyKeyStore(db, dialect),
    organizations: createKyselyOrganizationStore(db, dialect),
    plans: createKyselyPlanStore(db, { dialect, sqlite: connection }),
    creditGrants: createKyselyCreditGrantStore(db),
    webhooks: createKyselyWebhookStore(db, dialect),
    groups: createKyselyRateLimitGroupStore(db),
    serviceTokens: createKyselyServiceTokenStore(db),
    audit: createKyselyAuditStore(db),
    resources: createKyselyResourceStore(db, dialect),
    idempotency: createKyselyIdempotencyStore(db),
    console: createKyselyConsoleStore(db),
    oauth: createKyselyOauthStore(db),
    secretHandoffs: createKyselySecretHandoffStore(db),
    usageExport: createKyselyUsageExportStore(db),
    leakReports: createKyselyLeakReportStore(db),
    secretHashing: createKyselySecretHashingStore(db),
    dialect: dialect.name,
    poolStats: postgres
      ? () => ({
          total: postgres.pool.totalCount,
          idle: postgres.pool.idleCount,
          waiting: postgres.pool.waitingCount,
        })
      : undefined,
  };
  // The stores share this one connection (or pool) and none of them closes it: its opener does.
  const close = () => db.destroy();
  if (!freshness) return { ...stores, cacheSizes: () => ({}), close };
  return { ...stores, ...withExactCaches(stores, freshness), freshness, close };
}

/** A key store that owns the database it was opened on: `close()` releases it. */
export type OpenedKeyStore = KeyStore & { close(): Promise<void> };

/** Opens the database and returns only the key store (operator commands that need nothing else). */
export async function openKeyStore(databaseUrl: string): Promise<OpenedKeyStore> {
  const stores = await openStores(databaseUrl);
  return { ...stores.keys, close: () => stores.close() };
}
