import type { AuditEntry } from "../domain/audit.js";
import type { AuditStore } from "../store/audit-store.js";
import { decodeCursor, encodeCursor } from "./list-cursor.js";

/** A request for one page of the trail, after its query string was validated. */
export interface ListAuditRequest {
  /** The organization, or null for the deployment-wide entries (service tokens). */
  orgId: string | null;
  /** Page size. */
  count: number;
  /** `next_page_start` of the previous page. */
  pageStart?: string | undefined;
  /** Only entries at or after this time (epoch ms). */
  since?: number | undefined;
  /** Only entries before this time (epoch ms). */
  until?: number | undefined;
  /** Only entries of this actor. */
  actor?: string | undefined;
  /** Only entries about this record. */
  targetId?: string | undefined;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Cursor of the next page, or null when this was the last. */
  nextPageStart: string | null;
}

const isAuditId = (id: string) => /^aud_[0-9A-Za-z]{22}$/.test(id);

/** Reads the audit trail, newest first, in keyset pages like the key list. */
export interface AuditLog {
  list(request: ListAuditRequest): Promise<AuditPage>;
}

export function createAuditLog(store: AuditStore): AuditLog {
  return {
    async list(request) {
      const position =
        request.pageStart === undefined ? undefined : decodeCursor(request.pageStart, isAuditId);
      const rows = await store.listAuditEntries({
        orgId: request.orgId,
        limit: request.count + 1,
        since: request.since,
        until: request.until,
        actor: request.actor,
        targetId: request.targetId,
        after: position && { at: position.createdAt, id: position.id },
      });
      const entries = rows.slice(0, request.count);
      const last = entries[entries.length - 1];
      return {
        entries,
        nextPageStart:
          rows.length > request.count && last ? encodeCursor({ createdAt: last.at, id: last.id }) : null,
      };
    },
  };
}
