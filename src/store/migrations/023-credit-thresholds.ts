import type { Kysely, Migration } from "kysely";

/**
 * The percentages of a plan's allowance at which `credits.threshold_reached` is sent (docs/webhooks.md),
 * a JSON array on the organization row like the other plan columns: null means the default, 80 and 100.
 */
export const creditThresholds: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("organizations").addColumn("credit_thresholds", "text").execute();
  },
};
