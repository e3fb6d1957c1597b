import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.js";
import type { DecisionCounts, UsageBucket, UsageExportStore } from "./usage-export-store.js";

/** Rows per insert: four parameters each, far below either database's limit on parameters. */
const ROWS_PER_INSERT = 500;

/** Orders rows as every node does, so two nodes' batches lock PostgreSQL rows in the same order. */
function byOrgThenHour(a: DecisionCounts, b: DecisionCounts): number {
  if (a.orgId !== b.orgId) return a.orgId < b.orgId ? -1 : 1;
  return a.hourStart - b.hourStart;
}

export function createKyselyUsageExportStore(db: Kysely<Database>): UsageExportStore {
  return {
    async addDecisions(rows) {
      if (rows.length === 0) return;
      const sorted = [...rows].sort(byOrgThenHour);
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < sorted.length; i += ROWS_PER_INSERT) {
          await trx
            .insertInto("decision_hours")
            .values(
              sorted.slice(i, i + ROWS_PER_INSERT).map((row) => ({
                org_id: row.orgId,
                hour_start: row.hourStart,
                allowed: row.allowed,
                refused: row.refused,
              })),
            )
            .onConflict((conflict) =>
              conflict.columns(["org_id", "hour_start"]).doUpdateSet((eb) => ({
                allowed: eb("decision_hours.allowed", "+", eb.ref("excluded.allowed")),
                refused: eb("decision_hours.refused", "+", eb.ref("excluded.refused")),
              })),
            )
            .execute();
        }
      });
    },

    async organizationsAfter(afterId, limit) {
      let query = db.selectFrom("organizations").select(["id", "external_id"]).orderBy("id").limit(limit);
      if (afterId !== undefined) query = query.where("id", ">", afterId);
      const rows = await query.execute();
      return rows.map((row) => ({ id: row.id, externalId: row.external_id ?? null }));
    },

    async usageBuckets(orgIds, { from, to, bucketMs }) {
      if (orgIds.length === 0) return [];
      // Both tables keyed (org_id, hour_start): each side is an index range per organization. The
      // bucket is integer arithmetic on epoch ms, the same on both databases (a day starts at UTC 0:00).
      const size = sql.lit(bucketMs);
      const { rows } = await sql<{
        org_id: string;
        bucket_start: number | string;
        images: number | string;
        allowed: number | string;
        refused: number | string;
      }>`select org_id, hour_start - hour_start % ${size} as bucket_start,
          sum(images) as images, sum(allowed) as allowed, sum(refused) as refused
        from (
          select org_id, hour_start, images, 0 as allowed, 0 as refused from usage_hours
          where org_id in (${sql.join(orgIds)}) and hour_start >= ${from} and hour_start < ${to}
          union all
          select org_id, hour_start, 0 as images, allowed, refused from decision_hours
          where org_id in (${sql.join(orgIds)}) and hour_start >= ${from} and hour_start < ${to}
        ) as recorded
        group by org_id, bucket_start
        order by org_id, bucket_start`.execute(db);
      return rows.map((row): UsageBucket => ({
        orgId: row.org_id,
        bucketStart: Number(row.bucket_start),
        images: Number(row.images),
        allowed: Number(row.allowed),
        refused: Number(row.refused),
      }));
    },
  };
}
