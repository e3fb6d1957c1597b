import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { LatchkeyError } from "../../src/domain/errors.js";
import { asDatabaseError } from "../../src/store/database-errors.js";
import { withDatabaseFaults } from "../../src/store/database-fault-dialect.js";
import { createPostgresSchema, type PostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";

/** docs/several-nodes.md "When PostgreSQL goes away": which failures are a database that is away. */

describe("what counts as a database that is away", () => {
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  test.each([
    [
      "an administrator ended the backend",
      withCode("terminating connection due to administrator command", "57P01"),
    ],
    ["a crash shutdown", withCode("terminating connection", "57P02")],
    ["the server is starting", withCode("the database system is starting up", "57P03")],
    ["a connection failure (class 08)", withCode("connection failure", "08006")],
    ["nothing listens", withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")],
    ["the connection ended", new Error("Connection terminated unexpectedly")],
    ["connecting timed out", new Error("timeout exceeded when trying to connect")],
    ["SQLite's file stayed locked", withCode("database is locked", "SQLITE_BUSY")],
    [
      "a statement ran past statement_timeout",
      withCode("canceling statement due to statement timeout", "57014"),
    ],
  ])("%s: 503 database_unavailable, Retry-After 1", (_label, error) => {
    const translated = asDatabaseError(error);
    expect(translated).toBeInstanceOf(LatchkeyError);
    expect(translated).toMatchObject({ code: "database_unavailable", status: 503, retryAfterSeconds: 1 });
  });

  test.each([
    ["a unique violation", withCode("duplicate key value", "23505")],
    ["a syntax error", withCode("syntax error", "42601")],
    ["a plain bug", new TypeError("x is undefined")],
  ])("%s stays what it is", (_label, error) => {
    expect(asDatabaseError(error)).toBe(error);
  });
});

describeWithServices(["postgres"], "a Kysely connection whose backend is terminated", ({ postgres }) => {
  let schema: PostgresSchema;
  let pool: pg.Pool;
  let db: Kysely<{ notes: { id: number } }>;
  let admin: pg.Client;

  beforeAll(async () => {
    schema = await createPostgresSchema(postgres);
    pool = new pg.Pool({ connectionString: schema.url, max: 2 });
    // As the server does: an ended connection is an event to hear, not a crash.
    pool.on("error", () => undefined);
    pool.on("connect", (client) => client.on("error", () => undefined));
    db = new Kysely({ dialect: withDatabaseFaults(new PostgresDialect({ pool })) });
    await sql`create table notes (id integer primary key)`.execute(db);
    admin = new pg.Client({ connectionString: postgres });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await db?.destroy();
    await schema?.drop();
  });

  const terminate = (pid: number) => admin.query("select pg_terminate_backend($1)", [pid]);

  test("a COMMIT that lost its connection is 503 saying the change may or may not have been applied", async () => {
    const failure = await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto("notes").values({ id: 1 }).execute();
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await terminate(rows[0]!.pid);
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LatchkeyError);
    expect(failure).toMatchObject({ code: "database_unavailable", retryAfterSeconds: 1 });
    expect((failure as Error).message).toContain("may or may not have been applied");
    // And the pool serves the next query on a new connection.
    expect(await db.selectFrom("notes").selectAll().execute()).toEqual([]);
  });

  test("a query on a terminated connection is 503 database_unavailable, and the next one succeeds", async () => {
    const failure = await db
      .connection()
      .execute(async (connection) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection);
        await terminate(rows[0]!.pid);
        await connection.selectFrom("notes").selectAll().execute();
      })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "database_unavailable" });
    expect((failure as Error).message).toContain("nothing was changed");
    // The pool drops the ended connection once its socket closes (a moment after the error) and serves
    // on a new one: no restart, no manual reconnect.
    await vi.waitFor(async () => expect(await db.selectFrom("notes").select("id").execute()).toEqual([]));
  });

  test("a write on its own whose connection broke is reported as perhaps applied", async () => {
    const failure = await db
      .connection()
      .execute(async (connection) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection);
        await terminate(rows[0]!.pid);
        await connection.insertInto("notes").values({ id: 3 }).execute();
      })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "database_unavailable" });
    expect((failure as Error).message).toContain("may or may not have been applied");
  });
});
