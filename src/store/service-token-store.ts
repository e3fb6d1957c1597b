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
}

/** Persistence of service tokens; every lookup reads the database, so a revocation is seen at once. */
export interface ServiceTokenStore {
  insertServiceToken(token: ServiceTokenRecord): Promise<void>;
  /** Finds a token by the hash of the presented value. */
  findServiceTokenByHash(tokenHash: string): Promise<ServiceTokenRecord | undefined>;
  /** Every token, revoked ones included, oldest first. */
  listServiceTokens(): Promise<ServiceTokenRecord[]>;
  /** Marks a token revoked; false when there is no such token. Revoking twice keeps the first time. */
  revokeServiceToken(id: string, at: number): Promise<boolean>;
}
