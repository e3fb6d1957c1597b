import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";

/**
 * A key's networks (`allowed_cidrs`) and metadata, as JSON text on its row, so the key read of every
 * request stays one row. Metadata is copied into `key_metadata`, one row per member, which is what
 * `metadata[<name>]=<value>` searches: a plain table with a B-tree index works the same on SQLite and
 * PostgreSQL (SQLite cannot index the members of a JSON column, short of one index per member name;
 * a GIN index on PostgreSQL's jsonb finds the keys but not in the list's order). Each row repeats its
 * key's `created_at`, which never changes, so that the index yields one member's keys already in the
 * list's newest-first keyset order: a page costs its own rows, whatever the organization's size.
 */
export const networksAndMetadata: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("api_keys").addColumn("allowed_cidrs", "text").execute();
    await db.schema.alterTable("api_keys").addColumn("metadata", "text").execute();
    await db.schema
      .createTable("key_metadata")
      .addColumn("key_id", "text", (col) => col.notNull().references("api_keys.id"))
      .addColumn("org_id", "text", (col) => col.notNull())
      .addColumn("name", "text", (col) => col.notNull())
      .addColumn("value", "text", (col) => col.notNull())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .addPrimaryKeyConstraint("key_metadata_pk", ["key_id", "name"])
      .execute();
    // Serves `metadata[<name>]=<value>`: one member's keys of one organization, newest first, from
    // any keyset position (the primary key serves the further members of an all-of filter).
    await db.schema
      .createIndex("key_metadata_search")
      .on("key_metadata")
      .columns(["org_id", "name", "value", "created_at", "key_id"])
      .execute();
    // Serves `name_prefix`: a range of names in code point order, which is SQLite's own (BINARY) and,
    // on PostgreSQL, the "C" collation's, whatever the database's default collation is.
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    await sql`create index api_keys_org_name on api_keys (org_id, name ${sql.raw(postgres ? 'collate "C"' : "")})`.execute(
      db,
    );
  },
};
