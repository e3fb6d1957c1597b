import type { Kysely, Migration } from "kysely";

/**
 * Usage export (docs/usage-export.md): the decisions authorize and forward-auth made for each
 * organization, per UTC hour. Each node counts in memory and adds its counts here every few seconds
 * (services/decision-tally.ts), so no decision writes a row on its request path. Kept beside
 * `usage_hours` (images) rather than in it: the credits' conditional upsert locks that row, and a
 * batch of counts from another node must never wait on it.
 */
export const decisionHours: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("decision_hours")
      .addColumn("org_id", "text", (col) => col.notNull())
      .addColumn("hour_start", "bigint", (col) => col.notNull())
      .addColumn("allowed", "bigint", (col) => col.notNull().defaultTo(0))
      .addColumn("refused", "bigint", (col) => col.notNull().defaultTo(0))
      .addPrimaryKeyConstraint("decision_hours_pk", ["org_id", "hour_start"])
      .execute();
  },
};
