import type { Kysely, Migration } from "kysely";

/**
 * Key expiry and rolling (docs/key-lifecycle.md): a key's expiry, the secret a roll replaced with the
 * time it stops working, when the key's expiry was recorded in the audit trail (once), and the
 * organization's longest key lifetime.
 */
export const keyExpiry: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("api_keys").addColumn("expires_at", "bigint").execute();
    await db.schema.alterTable("api_keys").addColumn("previous_secret_hash", "text").execute();
    await db.schema.alterTable("api_keys").addColumn("previous_secret_expires_at", "bigint").execute();
    await db.schema.alterTable("api_keys").addColumn("expiry_recorded_at", "bigint").execute();
    await db.schema.alterTable("organizations").addColumn("max_key_lifetime_days", "integer").execute();
    // Serves the sweep that records expiries no request has run into yet.
    await db.schema.createIndex("api_keys_expires_at").on("api_keys").column("expires_at").execute();
  },
};
