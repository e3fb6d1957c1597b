import type { Kysely, Migration } from "kysely";

/**
 * Driving latchkey from the platform (docs/provisioning.md): service tokens' scopes, organizations the
 * platform finds by its own customer id and can disable, credit grants, the platform's own rate-limit
 * groups, stacked policies for organization overrides and keys' own `rate_limits` (docs/rate-limits.md).
 */
export const provisioning: Migration = {
  async up(db: Kysely<unknown>) {
    // Comma-separated scopes; every token issued before scopes existed keeps what it could do.
    await db.schema
      .alterTable("service_tokens")
      .addColumn("scopes", "text", (col) => col.notNull().defaultTo("authorize"))
      .execute();

    // The platform's customer id, unique where present (both databases let several rows hold null).
    await db.schema.alterTable("organizations").addColumn("external_id", "text").execute();
    await db.schema
      .createIndex("organizations_external_id_unique")
      .on("organizations")
      .column("external_id")
      .unique()
      .execute();
    // Epoch milliseconds the platform disabled the organization; null while enabled. Nothing else of
    // the organization changes, so enabling restores everything.
    await db.schema.alterTable("organizations").addColumn("disabled_at", "bigint").execute();
    await db.schema.alterTable("organizations").addColumn("updated_at", "bigint").execute();

    // Top-ups: consumed after the period's allowance, oldest expiry first, until used or expired.
    await db.schema
      .createTable("credit_grants")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("org_id", "text", (col) => col.notNull().references("organizations.id"))
      .addColumn("credits", "integer", (col) => col.notNull())
      .addColumn("remaining", "integer", (col) => col.notNull())
      .addColumn("expires_at", "bigint")
      .addColumn("reason", "text")
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex("credit_grants_by_org")
      .on("credit_grants")
      .columns(["org_id", "created_at", "id"])
      .execute();

    // Groups the platform declares for its own routes with PUT /v1/admin/groups/{group}; the
    // LATCHKEY_GROUPS file declares others at start. `policies` is JSON text.
    await db.schema
      .createTable("rate_limit_groups")
      .addColumn("name", "text", (col) => col.primaryKey())
      .addColumn("policies", "text", (col) => col.notNull())
      .addColumn("per", "text", (col) => col.notNull())
      .addColumn("updated_at", "bigint", (col) => col.notNull())
      .execute();

    // An override may now be a list of windows (JSON) and count per key; `quota` alone (the CLI's
    // `org limits --quota`) still means one window of the deployment's length.
    await db.schema.alterTable("rate_limit_overrides").addColumn("policies", "text").execute();
    await db.schema.alterTable("rate_limit_overrides").addColumn("per", "text").execute();

    // A key's own limits (JSON: group -> policies), at most its organization's; null: none.
    await db.schema.alterTable("api_keys").addColumn("rate_limits", "text").execute();
  },
};
