import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";

/**
 * Access that ends when a person's does (docs/mcp-oauth.md): an MCP connection belongs to its user's
 * membership of its organization (a foreign key, so a removed membership or user takes its connections
 * with it); refresh tokens already rotated are remembered, so presenting one again revokes the whole
 * connection; a code remembers the connection it created, so a replayed code revokes it; a client
 * remembers its first consent, so clients nobody consented to can be deleted.
 */
export const oauthGrants: Migration = {
  async up(db: Kysely<unknown>) {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    // Connections of people who are no longer members were the hole this closes: they go, as the
    // constraint would have taken them.
    await sql`delete from mcp_connections where not exists (
      select 1 from memberships m
      where m.user_id = mcp_connections.user_id and m.org_id = mcp_connections.org_id)`.execute(db);
    // Members whose role can no longer grant a connection: revoked, as a demotion now does.
    await sql`update mcp_connections set revoked_at = created_at
      where revoked_at is null and exists (
        select 1 from memberships m
        where m.user_id = mcp_connections.user_id and m.org_id = mcp_connections.org_id
          and m.role not in ('owner', 'admin'))`.execute(db);
    if (postgres) {
      await sql`alter table mcp_connections add constraint mcp_connections_membership
        foreign key (user_id, org_id) references memberships (user_id, org_id) on delete cascade`.execute(db);
    } else {
      // SQLite adds a foreign key only by building the table again.
      await sql`create table mcp_connections_new (
        id text primary key,
        org_id text not null references organizations (id) on delete cascade,
        user_id text not null,
        client_id text not null,
        client_name text not null,
        permissions text not null,
        resource text not null,
        access_hash text not null unique,
        access_expires_at bigint not null,
        refresh_hash text not null unique,
        created_at bigint not null,
        revoked_at bigint,
        foreign key (user_id, org_id) references memberships (user_id, org_id) on delete cascade
      )`.execute(db);
      await sql`insert into mcp_connections_new select id, org_id, user_id, client_id, client_name,
        permissions, resource, access_hash, access_expires_at, refresh_hash, created_at, revoked_at
        from mcp_connections`.execute(db);
      await sql`drop table mcp_connections`.execute(db);
      await sql`alter table mcp_connections_new rename to mcp_connections`.execute(db);
      await db.schema.createIndex("mcp_connections_org").on("mcp_connections").column("org_id").execute();
    }
    await db.schema
      .createIndex("mcp_connections_user")
      .on("mcp_connections")
      .columns(["user_id", "org_id"])
      .execute();

    // Every refresh token a rotation replaced, until its connection goes: one presented again means
    // two parties hold the connection's tokens (RFC 9700, section 4.14.2).
    await db.schema
      .createTable("mcp_rotated_refresh_tokens")
      .addColumn("refresh_hash", "text", (col) => col.primaryKey())
      .addColumn("connection_id", "text", (col) =>
        col.notNull().references("mcp_connections.id").onDelete("cascade"),
      )
      .addColumn("rotated_at", "bigint", (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex("mcp_rotated_refresh_tokens_connection")
      .on("mcp_rotated_refresh_tokens")
      .column("connection_id")
      .execute();

    // The connection a code's one exchange created: a second exchange revokes it.
    await db.schema.alterTable("oauth_codes").addColumn("connection_id", "text").execute();
    await db.schema.createIndex("oauth_codes_expiry").on("oauth_codes").column("expires_at").execute();

    // When a user first consented to the client; clients never consented to are deleted after a day.
    await db.schema.alterTable("oauth_clients").addColumn("consented_at", "bigint").execute();
    await sql`update oauth_clients set consented_at = created_at
      where exists (select 1 from oauth_codes c where c.client_id = oauth_clients.client_id)`.execute(db);
    await db.schema
      .createIndex("oauth_clients_unconsented")
      .on("oauth_clients")
      .columns(["consented_at", "created_at"])
      .execute();
  },
};
