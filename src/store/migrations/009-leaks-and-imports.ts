import { type Kysely, type Migration, sql } from "kysely";

/**
 * Leak response and imported keys (docs/secret-scanning.md, docs/import.md):
 * - `leaked_at`: when a secret scanner reported the key's secret public; null otherwise;
 * - `secret_scheme`: how `secret_hash` was made. `server` is the server's own hashing (SHA-256, or
 *   HMAC-SHA-256 with LATCHKEY_SECRET_PEPPER); `sha256` is a plain SHA-256 brought by an import from
 *   another system, which must keep matching whatever pepper is configured later;
 * - `previous_secret_scheme`: the same for the secret a roll replaced, which keeps working during the
 *   roll's overlap the way it was stored;
 * - an index on `secret_hash`, so a reported secret finds its key without knowing its api_id.
 */
export const leaksAndImports: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("api_keys").addColumn("leaked_at", "bigint").execute();
    await db.schema
      .alterTable("api_keys")
      .addColumn("secret_scheme", "text", (col) => col.notNull().defaultTo(sql`'server'`))
      .execute();
    await db.schema
      .alterTable("api_keys")
      .addColumn("previous_secret_scheme", "text", (col) => col.notNull().defaultTo(sql`'server'`))
      .execute();
    await db.schema.createIndex("api_keys_secret_hash").on("api_keys").column("secret_hash").execute();
  },
};
