import type { Kysely } from "kysely";
import { idempotencyKeyInUse } from "../domain/idempotency.js";
import type { ClaimOutcome, IdempotencyStore, IdempotentResponse } from "./idempotency-store.js";
import type { Database } from "./schema.js";

/**
 * Records the first response of a create, with `trx`, the create's own transaction: the response is
 * committed with the record or not at all. Throws (rolling the create back) if the request no longer
 * holds the key, which happens only when its lease lapsed and a repeat took the key over.
 */
export async function recordIdempotentResponse(
  trx: Kysely<Database>,
  response: IdempotentResponse | undefined,
): Promise<void> {
  if (!response) return;
  const result = await trx
    .updateTable("idempotency_keys")
    .set({ status: response.status, response: response.body })
    .where("org_id", "=", response.orgId)
    .where("idempotency_key", "=", response.key)
    .where("claim", "=", response.claim)
    .where("response", "is", null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw idempotencyKeyInUse();
}

export function createKyselyIdempotencyStore(db: Kysely<Database>): IdempotencyStore {
  async function read(orgId: string, key: string) {
    return db
      .selectFrom("idempotency_keys")
      .selectAll()
      .where("org_id", "=", orgId)
      .where("idempotency_key", "=", key)
      .executeTakeFirst();
  }

  return {
    async claim(claim) {
      const { orgId, key, fingerprint, now } = claim;
      // One statement, so two repeats cannot both take the key: a new row, or the takeover of one whose
      // window ended or whose holder died (same body, no response, lease lapsed).
      const taken = await db
        .insertInto("idempotency_keys")
        .values({
          org_id: orgId,
          idempotency_key: key,
          fingerprint,
          claim: claim.claim,
          claimed_until: claim.claimedUntil,
          status: null,
          response: null,
          expires_at: claim.expiresAt,
        })
        .onConflict((oc) =>
          oc
            .columns(["org_id", "idempotency_key"])
            .doUpdateSet({
              fingerprint,
              claim: claim.claim,
              claimed_until: claim.claimedUntil,
              status: null,
              response: null,
              expires_at: claim.expiresAt,
            })
            .where((eb) =>
              eb.or([
                eb("idempotency_keys.expires_at", "<=", now),
                eb.and([
                  eb("idempotency_keys.response", "is", null),
                  eb("idempotency_keys.claimed_until", "<=", now),
                  eb("idempotency_keys.fingerprint", "=", fingerprint),
                ]),
              ]),
            ),
        )
        .returning("claim")
        .executeTakeFirst();
      if (taken?.claim === claim.claim) return { type: "claimed" };
      const row = await read(orgId, key);
      // Swept between the two statements: its window had ended, so it is nobody's; ask again.
      if (!row) return this.claim(claim);
      let outcome: ClaimOutcome;
      if (row.fingerprint !== fingerprint) outcome = { type: "reused" };
      else if (row.response !== null && row.status !== null) {
        outcome = { type: "replay", status: Number(row.status), body: row.response };
      } else outcome = { type: "in_use" };
      return outcome;
    },

    async release(orgId, key, claim) {
      await db
        .deleteFrom("idempotency_keys")
        .where("org_id", "=", orgId)
        .where("idempotency_key", "=", key)
        .where("claim", "=", claim)
        .where("response", "is", null)
        .execute();
    },

    async sweep(now) {
      const result = await db
        .deleteFrom("idempotency_keys")
        .where("expires_at", "<=", now)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
