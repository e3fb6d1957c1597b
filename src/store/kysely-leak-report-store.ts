import type { Kysely } from "kysely";
import type { LeakReportStore } from "./leak-report-store.js";
import type { Database } from "./schema.js";

export function createKyselyLeakReportStore(db: Kysely<Database>): LeakReportStore {
  return {
    async processedLabel(fingerprint, since) {
      const row = await db
        .selectFrom("leak_reports")
        .select("label")
        .where("fingerprint", "=", fingerprint)
        .where("processed_at", ">=", since)
        .executeTakeFirst();
      return row?.label;
    },
    async recordProcessed(fingerprint, label, at) {
      // A row older than the window may still be there (the sweep is lazy): this report replaces it.
      await db
        .insertInto("leak_reports")
        .values({ fingerprint, label, processed_at: at })
        .onConflict((conflict) => conflict.column("fingerprint").doUpdateSet({ label, processed_at: at }))
        .execute();
    },
    async sweep(before) {
      const result = await db
        .deleteFrom("leak_reports")
        .where("processed_at", "<", before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
