import type { AuditOf } from "../domain/audit.js";
import type { IdempotentResponse } from "./idempotency-store.js";
import type { ServiceTokenScope } from "../domain/service-token-scopes.js";

/** A service token as stored: never the token, only its hash. */
export interface ServiceTokenRecord {
  /** `stk_...` identifier, used to revoke it. */
  id: string;
  /** What the token is for, e.g. the service that holds it. */
  name: string;
  /** Hash of the token (SHA-256, or HMAC with the server pepper). */
  tokenHash: string;
  /** Epoch milliseconds of creation. */
  createdAt: number;
  /** Epoch milliseconds of revocation, or null while valid. */
  revokedAt: number | null;
  /** What the token may be used for, in catalogue order. */
  scopes: readonly ServiceTokenScope[];
}

/** Persistence of service tokens; every lookup reads the database, so a revocation is seen at once. */
export interface ServiceTokenStore {
  /** Inserts a token and records `audit` (and `response`, an idempotent answer) in the same transaction. */
  insertServiceToken(
    token: ServiceTokenRecord,
    audit?: AuditOf<ServiceTokenRecord>,
    response?: IdempotentResponse,
  ): Promise<void>;
  /** Finds a token by the hash of the presented value. */
  findServiceTokenByHash(tokenHash: string): Promise<ServiceTokenRecord | undefined>;
  /** Every token, revoked ones included, oldest first. */
  listServiceTokens(): Promise<ServiceTokenRecord[]>;
  /**
   * Marks a token revoked and records `audit`, in one transaction; false when there is no such token.
   * Revoking twice keeps the first time (and records the second request too).
   */
  revokeServiceToken(id: string, at: number, audit?: AuditOf<ServiceTokenRecord>): Promise<boolean>;
}
