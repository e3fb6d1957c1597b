import type { Kysely, Migration } from "kysely";

/** The first responses of creates sent with an `Idempotency-Key`, kept 24 hours (docs/keys.md). */
export const idempotency: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("idempotency_keys")
      // No foreign key: a row outlives nothing it needs, and the sweep removes it after the window.
      .addColumn("org_id", "text", (col) => col.notNull())
      .addColumn("idempotency_key", "text", (col) => col.notNull())
      // SHA-256 of the route and the request body: a repeat must send the same.
      .addColumn("fingerprint", "text", (col) => col.notNull())
      // Which request holds the key while its create runs, and until when (a lease: see the store).
      .addColumn("claim", "text", (col) => col.notNull())
      .addColumn("claimed_until", "bigint", (col) => col.notNull())
      // The first response, written in the create's own transaction; null while the create runs.
      .addColumn("status", "integer")
      .addColumn("response", "text")
      .addColumn("expires_at", "bigint", (col) => col.notNull())
      .addPrimaryKeyConstraint("idempotency_keys_pk", ["org_id", "idempotency_key"])
      .execute();
    // Serves the sweep of expired rows.
    await db.schema
      .createIndex("idempotency_keys_expires")
      .on("idempotency_keys")
      .column("expires_at")
      .execute();
  },
};
