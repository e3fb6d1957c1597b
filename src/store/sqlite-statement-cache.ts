import type { Database, Statement } from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/**
 * Tables whose rows no cache holds: writing them (credits, usage, decision counts) must not
 * make cached keys, plans and tokens be read again. A write to any other table, or any statement not
 * recognised as a read, counts as a change of cached data.
 */
const UNCACHED_TABLES = new Set([
  "credit_periods",
  "usage_hours",
  "decision_hours",
  // Webhooks (docs/webhooks.md): the delivery loop writes them every few seconds; no cache holds them.
  "webhook_endpoints",
  "webhook_messages",
  "webhook_deliveries",
  "webhook_attempts",
]);

const READ_ONLY = /^\s*(select|begin|commit|end|rollback|savepoint|release|pragma\s+data_version)\b/i;

/**
 * A key's last use (services/last-use.ts), written about once a minute per active key: were it a
 * change, every active key would empty the caches once a minute. The cached copies of that one key
 * are patched instead (../cache/exact-cache.ts); nothing else depends on the column.
 */
const LAST_USE_ONLY = /^\s*update\s+"?api_keys"?\s+set\s+"?last_used_at"?\s*=\s*\?\s+where\b/i;
const WRITE_TARGET = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update|delete\s+from)\s+"?(\w+)"?/i;

/** Whether running `sql` may change a row some cache holds (conservative: unknown means yes). */
export function changesCachedData(sql: string): boolean {
  if (READ_ONLY.test(sql) || LAST_USE_ONLY.test(sql)) return false;
  const target = WRITE_TARGET.exec(sql)?.[1];
  return !(target && UNCACHED_TABLES.has(target.toLowerCase()));
}

/**
 * Kysely opens every transaction with a plain (deferred) `begin`. Every latchkey transaction writes, and
 * a deferred one that read first cannot take the write lock once another process (the CLI, a second
 * server) has written: SQLite then fails it at once with "database is locked", whatever the busy
 * timeout. `begin immediate` takes the write lock up front, waiting for it under the busy timeout.
 */
function immediate(sql: string): string {
  return /^\s*begin\s*;?\s*$/i.test(sql) ? "begin immediate" : sql;
}

/** A statement that reports, each time it runs, that cached data may have changed. */
function reportingWrites(statement: Statement, onWrite: () => void): SqliteStatement {
  return {
    get reader() {
      return statement.reader;
    },
    all(parameters: ReadonlyArray<unknown>) {
      onWrite();
      return statement.all(parameters);
    },
    run(parameters: ReadonlyArray<unknown>) {
      onWrite();
      return statement.run(parameters);
    },
    iterate(parameters: ReadonlyArray<unknown>) {
      onWrite();
      return statement.iterate(parameters);
    },
  };
}

/**
 * Hands Kysely's SQLite driver one prepared statement per SQL text instead of preparing every query
 * afresh: parsing and planning were a fifth of a request's CPU (bench/README.md). Reusing a statement
 * is safe because the driver runs it to completion synchronously (`all`/`run`); the only exception,
 * `iterate` for streamed results, is not used by the store. Few distinct texts exist, but the cache is
 * bounded all the same, dropping the oldest entry. `onWrite` is told, synchronously and before the
 * statement runs, of every statement that may change cached data (../cache/sqlite-freshness.ts).
 */
export function withStatementCache(database: Database, capacity = 256, onWrite?: () => void): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (!statement) {
        const prepared = database.prepare(immediate(sql));
        statement = onWrite && changesCachedData(sql) ? reportingWrites(prepared, onWrite) : prepared;
        if (statements.size >= capacity) statements.delete(statements.keys().next().value as string);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
