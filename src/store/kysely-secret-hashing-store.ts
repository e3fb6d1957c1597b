import type { Kysely } from "kysely";
import type { SecretHashingStore } from "./secret-hashing-store.js";
import type { Database } from "./schema.js";

/** The table holds one row, under this id. */
const ROW = "deployment";

export function createKyselySecretHashingStore(db: Kysely<Database>): SecretHashingStore {
  return {
    async recorded() {
      const row = await db
        .selectFrom("secret_hashing")
        .select(["scheme", "pepper_fingerprint"])
        .where("id", "=", ROW)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        scheme: row.scheme === "hmac-sha256" ? "hmac-sha256" : "sha256",
        pepperFingerprint: row.pepper_fingerprint,
      };
    },
    async record(hashing, at) {
      const values = {
        scheme: hashing.scheme,
        pepper_fingerprint: hashing.pepperFingerprint,
        recorded_at: at,
      };
      // Nodes starting together write the same values; the last start wins.
      await db
        .insertInto("secret_hashing")
        .values({ id: ROW, ...values })
        .onConflict((conflict) => conflict.column("id").doUpdateSet(values))
        .execute();
    },
  };
}
