import type { Kysely, Migration } from "kysely";

/** The resource families (docs/resource-families.md): records, per-family counts, tombstones, external ids. */
export const resources: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("resources")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("org_id", "text", (col) => col.notNull().references("organizations.id"))
      .addColumn("family", "text", (col) => col.notNull())
      .addColumn("name", "text", (col) => col.notNull())
      .addColumn("enabled", "integer", (col) => col.notNull())
      // JSON text on both databases, so one set of queries serves SQLite and PostgreSQL.
      .addColumn("settings", "text", (col) => col.notNull())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .addColumn("updated_at", "bigint", (col) => col.notNull())
      .execute();
    // Serves the newest-first keyset pagination of one organization's family.
    await db.schema
      .createIndex("resources_org_family_created")
      .on("resources")
      .columns(["org_id", "family", "created_at", "id"])
      .execute();
    // Live records per organization and family: the quota is one conditional increment of this row.
    await db.schema
      .createTable("resource_counts")
      .addColumn("org_id", "text", (col) => col.notNull().references("organizations.id"))
      .addColumn("family", "text", (col) => col.notNull())
      .addColumn("count", "integer", (col) => col.notNull())
      .addPrimaryKeyConstraint("resource_counts_pk", ["org_id", "family"])
      .execute();
    // Ids of deleted records (no content), so that repeating a delete is 204 and an unknown id 404.
    await db.schema
      .createTable("deleted_resources")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("org_id", "text", (col) => col.notNull())
      .addColumn("family", "text", (col) => col.notNull())
      .addColumn("deleted_at", "bigint", (col) => col.notNull())
      .execute();
    await db.schema
      .createTable("aws_external_ids")
      .addColumn("org_id", "text", (col) => col.primaryKey().references("organizations.id"))
      .addColumn("external_id", "text", (col) => col.notNull())
      .execute();
  },
};
