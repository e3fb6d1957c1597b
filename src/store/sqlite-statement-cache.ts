import type { Database, Statement } from "better-sqlite3";
import type { SqliteDatabase } from "kysely";

/**
 * Hands Kysely's SQLite driver one prepared statement per SQL text instead of preparing every query
 * afresh: parsing and planning were a fifth of a request's CPU (bench/README.md). Reusing a statement
 * is safe because the driver runs it to completion synchronously (`all`/`run`); the only exception,
 * `iterate` for streamed results, is not used by the store. Few distinct texts exist, but the cache is
 * bounded all the same, dropping the oldest entry.
 */
export function withStatementCache(database: Database, capacity = 256): SqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    close: () => database.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        if (statements.size >= capacity) statements.delete(statements.keys().next().value as string);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
