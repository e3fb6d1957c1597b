import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { describe, expect, onTestFinished, test } from "vitest";
import { migrateToLatest, migrationProvider } from "../../src/store/migrations/index.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { tempDir } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";

/**
 * Upgrading a database that holds the connections the review found (a removed admin's still live, a
 * demoted one's still live) to migration 016: the first are deleted, the second revoked, the rest kept,
 * and the foreign key holds from then on. On SQLite (which rebuilds the table) and PostgreSQL.
 */
function upgradeContract(open: () => Promise<{ db: Kysely<unknown>; schema?: string }>) {
  test("migration 016 deletes connections without a membership, revokes those of members, keeps the others", async () => {
    const { db, schema } = await open();
    const migrator = new Migrator({
      db,
      provider: migrationProvider,
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
    const before = await migrator.migrateTo("015-provisioning");
    expect(before.error).toBeUndefined();
    await sql`insert into organizations (id, name, created_at) values ('org_1', 'acme', 1)`.execute(db);
    for (const [id, role] of [
      ["usr_admin", "admin"],
      ["usr_member", "member"],
      ["usr_gone", "admin"],
    ] as const) {
      await sql`insert into console_users (id, email, password_hash, created_at)
        values (${id}, ${`${id}@example.com`}, 'x', 1)`.execute(db);
      await sql`insert into memberships (user_id, org_id, role, created_at)
        values (${id}, 'org_1', ${role}, 1)`.execute(db);
      await sql`insert into mcp_connections (id, org_id, user_id, client_id, client_name, permissions,
        resource, access_hash, access_expires_at, refresh_hash, created_at, revoked_at)
        values (${`mcc_${id}`}, 'org_1', ${id}, 'mcl_1', 'client', 'usage:read', 'r', ${`a_${id}`}, 1,
        ${`r_${id}`}, 5, null)`.execute(db);
    }
    await sql`insert into oauth_clients (client_id, client_name, redirect_uris, created_at)
      values ('mcl_1', 'client', '[]', 1), ('mcl_idle', 'idle', '[]', 1)`.execute(db);
    await sql`insert into oauth_codes (code_hash, client_id, user_id, org_id, permissions, redirect_uri,
      code_challenge, resource, expires_at, used_at)
      values ('c1', 'mcl_1', 'usr_admin', 'org_1', 'usage:read', 'x', 'x', 'r', 1, 1)`.execute(db);
    // Removed the way the old code removed a member: the membership went, the connection stayed.
    await sql`delete from memberships where user_id = 'usr_gone'`.execute(db);

    await migrateToLatest(db, schema);

    const rows = await sql<{ id: string; revoked_at: number | string | null }>`
      select id, revoked_at from mcp_connections order by id`.execute(db);
    expect(rows.rows.map((r) => [r.id, r.revoked_at === null ? null : Number(r.revoked_at)])).toEqual([
      ["mcc_usr_admin", null],
      ["mcc_usr_member", 5],
    ]);
    const clients = await sql<{ client_id: string; consented_at: number | string | null }>`
      select client_id, consented_at from oauth_clients order by client_id`.execute(db);
    expect(
      clients.rows.map((r) => [r.client_id, r.consented_at === null ? null : Number(r.consented_at)]),
    ).toEqual([
      ["mcl_1", 1],
      ["mcl_idle", null],
    ]);
    await expect(
      sql`insert into mcp_connections (id, org_id, user_id, client_id, client_name, permissions, resource,
        access_hash, access_expires_at, refresh_hash, created_at)
        values ('mcc_x', 'org_1', 'usr_gone', 'mcl_1', 'c', 'usage:read', 'r', 'ax', 1, 'rx', 1)`.execute(db),
    ).rejects.toThrow(/foreign key/i);
  });
}

describe("migration 016 on SQLite", () => {
  upgradeContract(async () => {
    const database = new SQLite(join(tempDir(), "latchkey.db"));
    database.pragma("foreign_keys = ON");
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) });
    onTestFinished(() => db.destroy());
    return { db };
  });
});

describeWithServices(["postgres"], "migration 016 on PostgreSQL", ({ postgres }) => {
  upgradeContract(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const db = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 1 }) }),
    });
    onTestFinished(() => db.destroy());
    return { db, schema: schema.name };
  });
});
