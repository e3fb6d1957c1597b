import type { Kysely } from "kysely";
import type { GroupLimit } from "../domain/rate-limit-policies.js";
import { policiesToJson } from "../domain/rate-limit-policies.js";
import type { Database } from "./schema.js";

/**
 * Writes (or with null, removes) one organization's override of one group, in the caller's
 * transaction. A stacked override keeps its first policy's quota in `quota` too, which older readers
 * of the row see.
 */
export async function writeGroupOverride(
  db: Kysely<Database>,
  orgId: string,
  group: string,
  limit: GroupLimit | null,
): Promise<void> {
  if (limit === null) {
    await db
      .deleteFrom("rate_limit_overrides")
      .where("org_id", "=", orgId)
      .where("group_name", "=", group)
      .execute();
    return;
  }
  const columns = {
    quota: limit.policies[0]?.quota ?? 0,
    policies: JSON.stringify(policiesToJson(limit.policies)),
    per: limit.per,
  };
  await db
    .insertInto("rate_limit_overrides")
    .values({ org_id: orgId, group_name: group, ...columns })
    .onConflict((oc) => oc.columns(["org_id", "group_name"]).doUpdateSet(columns))
    .execute();
}
