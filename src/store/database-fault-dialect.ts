import type { DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from "kysely";
import {
  asDatabaseError,
  commitOutcomeUnknown,
  isConnectionLoss,
  isDatabaseUnavailable,
} from "./database-errors.js";

const WRITES = new Set(["InsertQueryNode", "UpdateQueryNode", "DeleteQueryNode", "MergeQueryNode"]);

/** A connection whose failures come out as the domain's `database_unavailable` when the database is away. */
class TranslatingConnection implements DatabaseConnection {
  /** Between BEGIN and COMMIT or ROLLBACK: a statement's fate is then the COMMIT's. */
  inTransaction = false;

  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: Parameters<DatabaseConnection["executeQuery"]>[0]): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(query);
    } catch (error) {
      // A write committed on its own, whose connection broke once it was sent, may have been applied.
      if (!this.inTransaction && WRITES.has(query.query.kind) && isConnectionLoss(error)) {
        throw commitOutcomeUnknown();
      }
      throw asDatabaseError(error);
    }
  }

  async *streamQuery<R>(
    query: Parameters<DatabaseConnection["streamQuery"]>[0],
    chunkSize?: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
    } catch (error) {
      throw asDatabaseError(error);
    }
  }
}

type Compile = Parameters<NonNullable<Driver["savepoint"]>>[2];

/**
 * Every query, transaction step and connection checkout of `inner`, with a database that is away
 * translated to `503 database_unavailable` (database-errors.ts), and a COMMIT that lost its connection
 * reported as such: the change may or may not have been applied.
 */
class TranslatingDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  private static unwrap(connection: DatabaseConnection): DatabaseConnection {
    return connection instanceof TranslatingConnection ? connection.inner : connection;
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    try {
      return new TranslatingConnection(await this.inner.acquireConnection());
    } catch (error) {
      throw asDatabaseError(error);
    }
  }

  // The dialects' transaction steps run queries on the connection they are given: the translating one.
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(connection, settings);
    if (connection instanceof TranslatingConnection) connection.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof TranslatingConnection) connection.inTransaction = false;
    try {
      await this.inner.commitTransaction(connection);
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      if (isDatabaseUnavailable(error) && isConnectionLoss(cause)) throw commitOutcomeUnknown();
      throw error;
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof TranslatingConnection) connection.inTransaction = false;
    try {
      await this.inner.rollbackTransaction(connection);
    } catch (error) {
      // A dead connection's transaction is rolled back by the server; the error that led here (maybe
      // the unknown outcome of a COMMIT) is the one to report, not this one.
      if (isDatabaseUnavailable(error)) return;
      throw error;
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    // The dialect releases its own connection object (pg's client goes back to the pool, or is dropped).
    return this.inner.releaseConnection(TranslatingDriver.unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** `dialect` whose failures of a database that is away are the domain's `database_unavailable`. */
export function withDatabaseFaults(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new TranslatingDriver(dialect.createDriver()),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}
