import type { Kysely } from "kysely";
import type { AuditEntry } from "../domain/audit.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import type { Database } from "./schema.js";

/**
 * Revokes the live connections of a user (in one organization, or in all of theirs), inside the
 * caller's transaction, with one audit entry each: a person's change (removed, demoted, deleted, a new
 * password, two-factor reset) and the end of what they granted are one write. Resolves how many.
 */
export async function revokeConnectionsOf(
  trx: Kysely<Database>,
  who: { userId: string; orgId?: string },
  at: number,
  audit: (connection: { id: string; orgId: string }) => AuditEntry,
): Promise<number> {
  let live = trx
    .selectFrom("mcp_connections")
    .select(["id", "org_id"])
    .where("user_id", "=", who.userId)
    .where("revoked_at", "is", null);
  if (who.orgId !== undefined) live = live.where("org_id", "=", who.orgId);
  const rows = await live.execute();
  for (const row of rows) {
    await trx
      .updateTable("mcp_connections")
      .set({ revoked_at: at })
      .where("id", "=", row.id)
      .where("revoked_at", "is", null)
      .execute();
    await insertAuditEntry(trx, audit({ id: row.id, orgId: row.org_id }));
  }
  return rows.length;
}
