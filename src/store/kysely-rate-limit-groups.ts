import type { Kysely } from "kysely";
import { type CountedPer, policiesFromJson, policiesToJson } from "../domain/rate-limit-policies.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import type { DeclaredGroup, RateLimitGroupStore } from "./rate-limit-group-store.js";
import type { Database, RateLimitGroupsTable } from "./schema.js";

const toGroup = (row: RateLimitGroupsTable): DeclaredGroup => ({
  name: row.name,
  policies: policiesFromJson(JSON.parse(row.policies) as { quota: number; window_seconds: number }[]),
  per: row.per === "key" ? "key" : ("organization" satisfies CountedPer),
});

export function createKyselyRateLimitGroupStore(db: Kysely<Database>): RateLimitGroupStore {
  return {
    async putGroup(group, at, audit) {
      await db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom("rate_limit_groups")
          .selectAll()
          .where("name", "=", group.name)
          .executeTakeFirst();
        const columns = {
          policies: JSON.stringify(policiesToJson(group.policies)),
          per: group.per,
          updated_at: at,
        };
        await trx
          .insertInto("rate_limit_groups")
          .values({ name: group.name, ...columns })
          .onConflict((oc) => oc.column("name").doUpdateSet(columns))
          .execute();
        await insertAuditEntry(trx, audit?.(row && toGroup(row), group));
      });
    },
    async listGroups() {
      const rows = await db.selectFrom("rate_limit_groups").selectAll().orderBy("name").execute();
      return rows.map(toGroup);
    },
  };
}
