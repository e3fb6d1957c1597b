import type { Kysely, Migration } from "kysely";

/**
 * MCP over OAuth (docs/mcp-oauth.md): clients registered dynamically, authorization codes, and the
 * connections a user granted, with their tokens kept only as SHA-256 hashes.
 */
export const mcpOauth: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("oauth_clients")
      .addColumn("client_id", "text", (col) => col.primaryKey())
      .addColumn("client_name", "text", (col) => col.notNull())
      // JSON array of the exact redirect URIs registered.
      .addColumn("redirect_uris", "text", (col) => col.notNull())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .execute();
    await db.schema
      .createTable("oauth_codes")
      .addColumn("code_hash", "text", (col) => col.primaryKey())
      .addColumn("client_id", "text", (col) => col.notNull())
      .addColumn("user_id", "text", (col) => col.notNull())
      .addColumn("org_id", "text", (col) => col.notNull())
      .addColumn("permissions", "text", (col) => col.notNull())
      .addColumn("redirect_uri", "text", (col) => col.notNull())
      .addColumn("code_challenge", "text", (col) => col.notNull())
      .addColumn("resource", "text", (col) => col.notNull())
      .addColumn("expires_at", "bigint", (col) => col.notNull())
      // Set by the one exchange that may use the code; a second use finds it set.
      .addColumn("used_at", "bigint")
      .execute();
    await db.schema
      .createTable("mcp_connections")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("org_id", "text", (col) => col.notNull().references("organizations.id").onDelete("cascade"))
      .addColumn("user_id", "text", (col) => col.notNull())
      .addColumn("client_id", "text", (col) => col.notNull())
      .addColumn("client_name", "text", (col) => col.notNull())
      // Granted names in catalogue order, comma-separated.
      .addColumn("permissions", "text", (col) => col.notNull())
      .addColumn("resource", "text", (col) => col.notNull())
      .addColumn("access_hash", "text", (col) => col.notNull().unique())
      .addColumn("access_expires_at", "bigint", (col) => col.notNull())
      .addColumn("refresh_hash", "text", (col) => col.notNull().unique())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema.createIndex("mcp_connections_org").on("mcp_connections").column("org_id").execute();
  },
};
