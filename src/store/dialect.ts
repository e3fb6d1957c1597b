import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";

/**
 * What differs between SQLite and PostgreSQL for the stores, in one place: the statements are the
 * same Kysely queries on both, and each store asks its dialect where they part.
 */
export interface StoreDialect {
  readonly name: "sqlite" | "postgres";
  /**
   * `select` locking the rows it reads until the transaction ends: `FOR UPDATE` on PostgreSQL. SQLite
   * has no such clause and needs none: its writers are serialized by the single connection.
   */
  lockRows<S extends { forUpdate(): S }>(select: S): S;
  /**
   * `select` taking the rows no other transaction holds, and locking them: `FOR UPDATE SKIP LOCKED`
   * on PostgreSQL, so that several nodes claiming work never wait for nor take the same rows. SQLite's
   * single writer gives the same without a clause.
   */
  claimRows<S extends { forUpdate(): S; skipLocked(): S }>(select: S): S;
  /**
   * Within a transaction, waits for and holds a lock named `name` until it ends (PostgreSQL's
   * transaction advisory lock); a check and the insert it allows are then one step on every node.
   */
  lockName(trx: Kysely<Database>, name: string): Promise<void>;
  /**
   * Runs `work` while holding a lock every node on this database shares (first-start setup). SQLite
   * serves one process (the CLI only writes rows), so there is no other node to wait for.
   */
  withStartupLock<T>(db: Kysely<Database>, work: () => Promise<T>): Promise<T>;
}

export const SQLITE: StoreDialect = {
  name: "sqlite",
  lockRows: (select) => select,
  claimRows: (select) => select,
  lockName: async () => {},
  withStartupLock: (_db, work) => work(),
};

export const POSTGRES: StoreDialect = {
  name: "postgres",
  lockRows: (select) => select.forUpdate(),
  claimRows: (select) => select.forUpdate().skipLocked(),
  lockName: async (trx, name) => {
    await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(trx);
  },
  // A session advisory lock on one pooled connection; `work` runs on others, the lock only orders the
  // nodes. The key is derived from a fixed text so it cannot collide with Kysely's migration lock.
  withStartupLock: (db, work) =>
    db.connection().execute(async (connection) => {
      await sql`select pg_advisory_lock(hashtext('latchkey:startup'))`.execute(connection);
      try {
        return await work();
      } finally {
        await sql`select pg_advisory_unlock(hashtext('latchkey:startup'))`.execute(connection);
      }
    }),
};
