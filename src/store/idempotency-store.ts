/** The first response of an idempotent create, written in the create's own transaction. */
export interface IdempotentResponse {
  orgId: string;
  /** The caller's `Idempotency-Key`. */
  key: string;
  /** The token the create's request claimed the key with; the write fails if it no longer holds it. */
  claim: string;
  status: number;
  /** JSON, or sealed where it holds a secret. */
  body: string;
}

/** A claim on one organization's `Idempotency-Key`. */
export interface IdempotencyClaim {
  orgId: string;
  key: string;
  /** SHA-256 of the route and body. */
  fingerprint: string;
  /** A fresh random token of this request. */
  claim: string;
  now: number;
  /** Until when the claim holds (a lease), and until when the row is kept. */
  claimedUntil: number;
  expiresAt: number;
}

/** What a claim found: the key is this request's now, or the first response, or a conflict. */
export type ClaimOutcome =
  | { type: "claimed" }
  | { type: "replay"; status: number; body: string }
  | { type: "reused" }
  | { type: "in_use" };

/** Rows of `idempotency_keys`; the create writes its response with the create's store (`IdempotentResponse`). */
export interface IdempotencyStore {
  /**
   * Claims the key for this request unless a live row holds it: a row past its window (or an abandoned
   * claim of the same body whose lease lapsed) is taken over; otherwise the row is reported.
   */
  claim(claim: IdempotencyClaim): Promise<ClaimOutcome>;
  /** Gives the key up after a create that failed (nothing was created): only while it has no response. */
  release(orgId: string, key: string, claim: string): Promise<void>;
  /** Deletes rows whose window ended; returns how many. */
  sweep(now: number): Promise<number>;
}
