import type { AuditEntry } from "../domain/audit.js";
import type { AuditEntryBody } from "./audit-schemas.js";

/** One entry as REST and `latchkey audit --json` show it. */
export function toAuditEntryBody(entry: AuditEntry): AuditEntryBody {
  return {
    id: entry.id,
    at: new Date(entry.at).toISOString(),
    actor: entry.actor,
    organization_id: entry.orgId,
    action: entry.action,
    target_id: entry.targetId,
    before: entry.before,
    after: entry.after,
  };
}
