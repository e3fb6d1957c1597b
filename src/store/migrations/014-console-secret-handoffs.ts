import type { Kysely, Migration } from "kysely";

/**
 * A secret the console shows once (a created or rolled key's) on its way from the form's POST to the
 * page the browser is redirected to (POST-redirect-GET, docs/console.md): sealed under a key only the
 * session's cookie gives, taken (deleted) by the one GET that shows it, and never kept past minutes.
 * Numbered 014: 013 is another change's.
 */
export const consoleSecretHandoffs: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("console_secret_handoffs")
      .addColumn("id", "text", (col) => col.primaryKey())
      // SHA-256 of the session's cookie: only that session takes it.
      .addColumn("session_hash", "text", (col) => col.notNull())
      // AES-256-GCM under a key derived from the cookie itself, which the database never holds.
      .addColumn("sealed", "text", (col) => col.notNull())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex("console_secret_handoffs_created")
      .on("console_secret_handoffs")
      .column("created_at")
      .execute();
  },
};
