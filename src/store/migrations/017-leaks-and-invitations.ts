import type { Kysely, Migration } from "kysely";

/**
 * Leak reports that end where they should (docs/secret-scanning.md):
 * - an index on `previous_secret_hash`, so a reported secret that a roll replaced (still working during
 *   the roll's overlap) finds its key like a current one;
 * - `leak_reports`: the reports already processed, by a hash of the token and URL, with the label they
 *   were answered with, kept 30 days: the same report again is answered as before and changes nothing
 *   (a replay cannot disable a key its owner re-enabled).
 *
 * And cross-tenant membership by invitation only (docs/console.md, "Members and invitations"):
 * `console_invitations`, one per organization and email (lower case), accepted by the person after
 * signing in; nothing about the account is known to the organization until then.
 */
export const leaksAndInvitations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex("api_keys_previous_secret_hash")
      .on("api_keys")
      .column("previous_secret_hash")
      .execute();
    await db.schema
      .createTable("leak_reports")
      // SHA-256 (hex) of the token and the URL: the token itself is a secret, never stored.
      .addColumn("fingerprint", "text", (col) => col.primaryKey())
      .addColumn("label", "text", (col) => col.notNull())
      .addColumn("processed_at", "bigint", (col) => col.notNull())
      .execute();
    // Serves the sweep of reports older than 30 days.
    await db.schema
      .createIndex("leak_reports_processed_at")
      .on("leak_reports")
      .column("processed_at")
      .execute();
    await db.schema
      .createTable("console_invitations")
      .addColumn("org_id", "text", (col) => col.notNull().references("organizations.id").onDelete("cascade"))
      .addColumn("email", "text", (col) => col.notNull())
      .addColumn("role", "text", (col) => col.notNull())
      .addColumn("invited_by", "text", (col) => col.notNull())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .addPrimaryKeyConstraint("console_invitations_pk", ["org_id", "email"])
      .execute();
    // Serves a signed-in person's own invitations.
    await db.schema
      .createIndex("console_invitations_email")
      .on("console_invitations")
      .column("email")
      .execute();
  },
};
