import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

/** Sealed secrets on their way to the console page that shows them (src/services/secret-handoffs.ts). */
export interface SecretHandoffStore {
  /** Keeps one, and forgets every one made before `staleBefore` (a page never opened). */
  put(
    handoff: { id: string; sessionHash: string; sealed: string; createdAt: number },
    staleBefore: number,
  ): Promise<void>;
  /**
   * Deletes and returns the sealed text of `id` when it belongs to `sessionHash` and was made at or after
   * `notBefore`; one conditional delete, so that of two requests (two nodes) only one gets it.
   */
  take(id: string, sessionHash: string, notBefore: number): Promise<string | undefined>;
}

export function createKyselySecretHandoffStore(db: Kysely<Database>): SecretHandoffStore {
  return {
    async put(handoff, staleBefore) {
      await db.deleteFrom("console_secret_handoffs").where("created_at", "<", staleBefore).execute();
      await db
        .insertInto("console_secret_handoffs")
        .values({
          id: handoff.id,
          session_hash: handoff.sessionHash,
          sealed: handoff.sealed,
          created_at: handoff.createdAt,
        })
        .execute();
    },
    async take(id, sessionHash, notBefore) {
      const taken = await db
        .deleteFrom("console_secret_handoffs")
        .where("id", "=", id)
        .where("session_hash", "=", sessionHash)
        .returning(["sealed", "created_at"])
        .executeTakeFirst();
      return taken && taken.created_at >= notBefore ? taken.sealed : undefined;
    },
  };
}
