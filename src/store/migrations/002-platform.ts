import type { Kysely, Migration } from "kysely";

/** The platform side (docs/platform.md): service tokens, plans, credit periods, hourly usage. */
export const platform: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("service_tokens")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("name", "text", (col) => col.notNull())
      .addColumn("token_hash", "text", (col) => col.notNull().unique())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .addColumn("revoked_at", "bigint")
      .execute();
    // Plan columns live on the organization row: null means "the deployment's default".
    for (const [column, type] of [
      ["image_credits", "integer"],
      ["overages", "integer"],
      ["period_anchor", "bigint"],
      ["max_batch_size", "integer"],
      ["proxies_enabled", "integer"],
      ["storage_destinations_enabled", "integer"],
    ] as const) {
      await db.schema.alterTable("organizations").addColumn(column, type).execute();
    }
    // One row per organization and billing period; `used` is changed only by one conditional upsert.
    await db.schema
      .createTable("credit_periods")
      .addColumn("org_id", "text", (col) => col.notNull().references("organizations.id"))
      .addColumn("period_start", "bigint", (col) => col.notNull())
      .addColumn("period_end", "bigint", (col) => col.notNull())
      .addColumn("used", "integer", (col) => col.notNull())
      .addPrimaryKeyConstraint("credit_periods_pk", ["org_id", "period_start"])
      .execute();
    // Consumption per UTC hour, written in the same transaction; days and months are sums of hours.
    await db.schema
      .createTable("usage_hours")
      .addColumn("org_id", "text", (col) => col.notNull().references("organizations.id"))
      .addColumn("hour_start", "bigint", (col) => col.notNull())
      .addColumn("images", "integer", (col) => col.notNull())
      .addPrimaryKeyConstraint("usage_hours_pk", ["org_id", "hour_start"])
      .execute();
  },
};
