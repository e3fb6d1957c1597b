import type { Kysely, Migration } from "kysely";

export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("organizations")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("name", "text", (col) => col.notNull())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .addColumn("key_count", "integer", (col) => col.notNull().defaultTo(0))
      .addColumn("max_keys", "integer")
      .execute();
    await db.schema
      .createTable("api_keys")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("org_id", "text", (col) => col.notNull().references("organizations.id"))
      .addColumn("api_id", "text", (col) => col.notNull().unique())
      .addColumn("secret_hash", "text", (col) => col.notNull())
      .addColumn("name", "text", (col) => col.notNull())
      .addColumn("description", "text")
      .addColumn("enabled", "integer", (col) => col.notNull())
      .addColumn("permissions", "text", (col) => col.notNull())
      .addColumn("all_future", "integer", (col) => col.notNull())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .addColumn("updated_at", "bigint", (col) => col.notNull())
      .execute();
    // Serves the newest-first keyset pagination of one organization.
    await db.schema
      .createIndex("api_keys_org_created")
      .on("api_keys")
      .columns(["org_id", "created_at", "id"])
      .execute();
    await db.schema
      .createTable("rate_limit_overrides")
      .addColumn("org_id", "text", (col) => col.notNull().references("organizations.id"))
      .addColumn("group_name", "text", (col) => col.notNull())
      .addColumn("quota", "integer", (col) => col.notNull())
      .addPrimaryKeyConstraint("rate_limit_overrides_pk", ["org_id", "group_name"])
      .execute();
  },
};
