import {
  type AuditAction,
  type AuditEntry,
  type AuditOf,
  type AuditSnapshot,
  OPERATOR_ACTOR,
} from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { randomBase62 } from "../domain/credentials.js";

/** What a service says about a change it is about to make; the store supplies before and after. */
export interface AuditedChange<T> {
  /** The key id, `operator` or `bootstrap`. */
  actor: string;
  /** The organization, or null for deployment-wide records. */
  orgId: string | null;
  action: AuditAction;
  /** The changed record's id, from the record after the change (before it, for a deletion). */
  targetOf: (record: T) => string;
  /** The secret-free view of the record (see audit-snapshots.ts). */
  snapshot: (record: T) => AuditSnapshot;
}

let sequence = 0;

/**
 * `aud_` + the time and a per-process sequence in fixed-width base 36, then random characters: ids sort
 * like their entries (an organization's creation before its owner key's, in the same millisecond), and
 * digits and lower-case letters sort alike under every collation, PostgreSQL's included.
 */
export function newAuditId(at: number): string {
  sequence = (sequence + 1) % 36 ** 4;
  return `aud_${at.toString(36).padStart(9, "0")}${sequence.toString(36).padStart(4, "0")}${randomBase62(9)}`;
}

/** The `AuditOf` a service hands to its store: the entry is built, and written, inside the change. */
export function auditOf<T>(clock: Clock, change: AuditedChange<T>): AuditOf<T> {
  return (before, after): AuditEntry => {
    const at = clock.now();
    const record = after ?? before;
    if (record === undefined) throw new Error("An audit entry needs a record before or after the change.");
    return {
      id: newAuditId(at),
      at,
      actor: change.actor,
      orgId: change.orgId,
      action: change.action,
      targetId: change.targetOf(record),
      before: before === undefined ? null : change.snapshot(before),
      after: after === undefined ? null : change.snapshot(after),
    };
  };
}

/**
 * Who a caller is in the audit trail: its own `actor` when it names one (the operator, the first
 * start), else the id of the calling key.
 */
export function actorOf(caller: { actor?: string | undefined; id?: string | undefined }): string {
  return caller.actor ?? caller.id ?? OPERATOR_ACTOR;
}
