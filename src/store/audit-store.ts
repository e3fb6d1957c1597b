import type { AuditEntry } from "../domain/audit.js";

/** Where an audit listing continues: strictly older than this (at, id) pair. */
export interface AuditPosition {
  at: number;
  id: string;
}

export interface ListAuditQuery {
  /** The organization, or null for the deployment-wide entries (service tokens). */
  orgId: string | null;
  /** Rows to return at most. */
  limit: number;
  /** Only entries at or after this time (epoch ms). */
  since?: number | undefined;
  /** Only entries before this time (epoch ms, exclusive). */
  until?: number | undefined;
  /** Only entries of this actor (`key_...`, `user:usr_...`, `operator`, `bootstrap`). */
  actor?: string | undefined;
  /** Only entries about this record id. */
  targetId?: string | undefined;
  /** Continue after this position (exclusive); first page when absent. */
  after?: AuditPosition | undefined;
}

/**
 * Reading the audit trail. Writing it is not here on purpose: every entry is written by the store that
 * makes the change, inside that change's transaction (see `AuditOf`).
 */
export interface AuditStore {
  /** One page of entries, newest first (at, then id, descending). */
  listAuditEntries(query: ListAuditQuery): Promise<AuditEntry[]>;
}
