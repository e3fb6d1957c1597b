import type { Kysely } from "kysely";
import type { ApiKeyRecord } from "./key-store.js";
import type { Database } from "./schema.js";

/** Rewrites the searchable copy of a key's metadata (`key_metadata`), in the caller's transaction. */
export async function writeMetadata(
  db: Kysely<Database>,
  key: ApiKeyRecord,
  replace: boolean,
): Promise<void> {
  if (replace) await db.deleteFrom("key_metadata").where("key_id", "=", key.id).execute();
  const members = Object.entries(key.metadata ?? {});
  if (members.length === 0) return;
  await db
    .insertInto("key_metadata")
    .values(
      members.map(([name, value]) => ({
        key_id: key.id,
        org_id: key.orgId,
        name,
        value,
        created_at: key.createdAt,
      })),
    )
    .execute();
}
