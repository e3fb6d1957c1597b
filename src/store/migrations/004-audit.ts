import type { Kysely, Migration } from "kysely";

/** The audit trail (one row per recorded change) and the keys' last use. */
export const audit: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("audit_events")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("at", "bigint", (col) => col.notNull())
      .addColumn("actor", "text", (col) => col.notNull())
      // No foreign key: the trail must outlive anything it mentions, and null means deployment-wide.
      .addColumn("org_id", "text")
      .addColumn("action", "text", (col) => col.notNull())
      .addColumn("target_id", "text", (col) => col.notNull())
      .addColumn("before_json", "text")
      .addColumn("after_json", "text")
      .execute();
    // Serves the newest-first keyset pagination of one organization (and of the null "deployment").
    await db.schema
      .createIndex("audit_events_org_at")
      .on("audit_events")
      .columns(["org_id", "at", "id"])
      .execute();
    // Epoch milliseconds of the last successful authentication, written at most about once a minute.
    await db.schema.alterTable("api_keys").addColumn("last_used_at", "bigint").execute();
  },
};
