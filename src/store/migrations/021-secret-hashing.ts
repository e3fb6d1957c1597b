import type { Kysely, Migration } from "kysely";

/**
 * `secret_hashing`: one row, how this database's servers hash secrets (SHA-256, or HMAC-SHA-256 with a
 * pepper, and a short fingerprint of the pepper, never the pepper), written by every server as it
 * starts. `latchkey keys import` compares its own environment with it (docs/import.md). Empty until a
 * server of this version starts.
 */
export const secretHashing: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("secret_hashing")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("scheme", "text", (col) => col.notNull())
      .addColumn("pepper_fingerprint", "text")
      .addColumn("recorded_at", "bigint", (col) => col.notNull())
      .execute();
  },
};
