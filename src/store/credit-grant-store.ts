import type { AuditOf } from "../domain/audit.js";
import type { IdempotentResponse } from "./idempotency-store.js";
import type { ListPosition } from "./key-store.js";

/** A top-up of image credits (docs/provisioning.md), consumed after the period's allowance. */
export interface CreditGrant {
  /** `cgr_...` identifier. */
  id: string;
  orgId: string;
  /** Credits granted. */
  credits: number;
  /** Credits not consumed yet (what is left, expired or not). */
  remaining: number;
  /** Epoch milliseconds from which nothing more is consumed from it; null: never. */
  expiresAt: number | null;
  /** Why it was granted (the platform's words); null: none given. */
  reason: string | null;
  createdAt: number;
}

/** Credit grants, in the database (never in Redis: credits are money). */
export interface CreditGrantStore {
  /**
   * Inserts a grant and records `audit`, and `response` (the first answer to an `Idempotency-Key`), in
   * the same transaction.
   */
  insertCreditGrant(
    grant: CreditGrant,
    audit?: AuditOf<CreditGrant>,
    response?: IdempotentResponse,
  ): Promise<void>;
  /** One page of an organization's grants, newest first. */
  listCreditGrants(
    orgId: string,
    query: { limit: number; after?: ListPosition | undefined },
  ): Promise<CreditGrant[]>;
}
