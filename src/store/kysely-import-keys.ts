import { type Kysely, sql } from "kysely";
import type { AuditOf } from "../domain/audit.js";
import type { ApiKeyRecord, ImportKeysResult } from "./key-store.js";
import { recordToRow } from "./key-rows.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import { isUniqueViolation } from "./database-errors.js";
import { writeMetadata } from "./key-metadata-rows.js";
import type { Database } from "./schema.js";

/** Rows per statement: far below SQLite's and PostgreSQL's limits on bound values. */
const CHUNK = 200;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** Thrown inside the transaction to roll it back with an answer: a refusal, or a dry run's success. */
class RollBack extends Error {
  constructor(readonly result: ImportKeysResult) {
    super("rolled back");
  }
}

/**
 * KeyStore.importKeys over Kysely: one transaction that reserves every slot with one conditional
 * increment (the quota check, as a single create does), looks for api_ids and secret hashes already
 * stored, inserts the rows and their audit entries, and commits only when all of that passed and this
 * is not a dry run.
 */
export async function importKeysInto(
  db: Kysely<Database>,
  orgId: string,
  keys: readonly ApiKeyRecord[],
  defaultMaxKeys: number,
  options: { audit?: AuditOf<ApiKeyRecord>; dryRun: boolean },
): Promise<ImportKeysResult> {
  const count = keys.length;
  try {
    return await db.transaction().execute(async (trx) => {
      const reserved = await trx
        .updateTable("organizations")
        .set({ key_count: sql`key_count + ${count}` })
        .where("id", "=", orgId)
        .where(sql<number>`key_count + ${count}`, "<=", sql<number>`coalesce(max_keys, ${defaultMaxKeys})`)
        .returning("key_count")
        .executeTakeFirst();
      if (!reserved) {
        const org = await trx
          .selectFrom("organizations")
          .select(["max_keys", "key_count"])
          .where("id", "=", orgId)
          .executeTakeFirst();
        return {
          type: "quota_exceeded",
          maxKeys: org?.max_keys ?? defaultMaxKeys,
          keyCount: Number(org?.key_count ?? 0),
        } as const;
      }
      const taken: string[] = [];
      for (const part of chunks(keys.map((key) => key.apiId))) {
        const rows = await trx.selectFrom("api_keys").select("api_id").where("api_id", "in", part).execute();
        taken.push(...rows.map((row) => row.api_id));
      }
      if (taken.length > 0) throw new RollBack({ type: "api_id_taken", apiIds: taken });
      const hashes = new Map(keys.map((key, index) => [key.secretHash, index]));
      for (const part of chunks([...hashes.keys()])) {
        const row = await trx
          .selectFrom("api_keys")
          .select("secret_hash")
          .where("secret_hash", "in", part)
          .executeTakeFirst();
        if (row) throw new RollBack({ type: "secret_taken", index: hashes.get(row.secret_hash) ?? 0 });
      }
      for (const part of chunks(keys))
        await trx.insertInto("api_keys").values(part.map(recordToRow)).execute();
      for (const key of keys) await writeMetadata(trx, key, false);
      for (const key of keys) await insertAuditEntry(trx, options.audit?.(undefined, key));
      if (options.dryRun) throw new RollBack({ type: "imported" });
      return { type: "imported" } as const;
    });
  } catch (error) {
    if (error instanceof RollBack) return error.result;
    // Another writer took one of the api_ids after the check: the same answer, without naming it.
    if (isUniqueViolation(error)) return { type: "api_id_taken", apiIds: [] };
    throw error;
  }
}
