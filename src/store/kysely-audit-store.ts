import type { Kysely } from "kysely";
import type { AuditAction, AuditEntry } from "../domain/audit.js";
import { eventOfAuditEntry } from "../domain/webhook-events.js";
import type { AuditStore } from "./audit-store.js";
import type { AuditEventsTable, Database } from "./schema.js";
import { enqueueEvent } from "./webhook-outbox.js";

function entryToRow(entry: AuditEntry): AuditEventsTable {
  return {
    id: entry.id,
    at: entry.at,
    actor: entry.actor,
    org_id: entry.orgId,
    action: entry.action,
    target_id: entry.targetId,
    before_json: entry.before === null ? null : JSON.stringify(entry.before),
    after_json: entry.after === null ? null : JSON.stringify(entry.after),
  };
}

function rowToEntry(row: AuditEventsTable): AuditEntry {
  return {
    id: row.id,
    at: Number(row.at),
    actor: row.actor,
    orgId: row.org_id,
    action: row.action as AuditAction,
    targetId: row.target_id,
    before: row.before_json === null ? null : (JSON.parse(row.before_json) as AuditEntry["before"]),
    after: row.after_json === null ? null : (JSON.parse(row.after_json) as AuditEntry["after"]),
  };
}

/**
 * Writes one entry with `db`, which the caller passes as the transaction of the change being recorded:
 * the entry commits with the change or not at all. So does the webhook event the change causes (the
 * outbox, docs/webhooks.md): an acknowledged change always has its event, across a crash.
 */
export async function insertAuditEntry(db: Kysely<Database>, entry: AuditEntry | undefined): Promise<void> {
  if (!entry) return;
  await db.insertInto("audit_events").values(entryToRow(entry)).execute();
  const event = eventOfAuditEntry(entry);
  if (event) await enqueueEvent(db, event);
}

export function createKyselyAuditStore(db: Kysely<Database>): AuditStore {
  return {
    async listAuditEntries(query) {
      let select = db
        .selectFrom("audit_events")
        .selectAll()
        .where((eb) => (query.orgId === null ? eb("org_id", "is", null) : eb("org_id", "=", query.orgId)));
      if (query.since !== undefined) select = select.where("at", ">=", query.since);
      if (query.until !== undefined) select = select.where("at", "<", query.until);
      if (query.actor !== undefined) select = select.where("actor", "=", query.actor);
      if (query.targetId !== undefined) select = select.where("target_id", "=", query.targetId);
      const after = query.after;
      if (after) {
        select = select.where((eb) =>
          eb.or([eb("at", "<", after.at), eb.and([eb("at", "=", after.at), eb("id", "<", after.id)])]),
        );
      }
      const rows = await select.orderBy("at", "desc").orderBy("id", "desc").limit(query.limit).execute();
      return rows.map(rowToEntry);
    },
  };
}
