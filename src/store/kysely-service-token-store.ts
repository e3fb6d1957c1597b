import { CompiledQuery, type Kysely } from "kysely";
import { isServiceTokenScope } from "../domain/service-token-scopes.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import { recordIdempotentResponse } from "./kysely-idempotency-store.js";
import type { Database, ServiceTokensTable } from "./schema.js";
import type { ServiceTokenRecord, ServiceTokenStore } from "./service-token-store.js";

function rowToRecord(row: ServiceTokensTable): ServiceTokenRecord {
  return {
    id: row.id,
    name: row.name,
    tokenHash: row.token_hash,
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    scopes: row.scopes.split(",").filter(isServiceTokenScope),
  };
}

export function createKyselyServiceTokenStore(db: Kysely<Database>): ServiceTokenStore {
  // Read on every authorize and forward-auth request: compiled once, like the key reads.
  const byHash = db.selectFrom("service_tokens").selectAll().where("token_hash", "=", "").compile().sql;
  return {
    async insertServiceToken(token, audit, response) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto("service_tokens")
          .values({
            id: token.id,
            name: token.name,
            token_hash: token.tokenHash,
            created_at: token.createdAt,
            revoked_at: token.revokedAt,
            scopes: token.scopes.join(","),
          })
          .execute();
        await insertAuditEntry(trx, audit?.(undefined, token));
        await recordIdempotentResponse(trx, response);
      });
    },

    async findServiceTokenByHash(tokenHash) {
      const { rows } = await db.executeQuery<ServiceTokensTable>(CompiledQuery.raw(byHash, [tokenHash]));
      return rows[0] && rowToRecord(rows[0]);
    },

    async listServiceTokens() {
      const rows = await db.selectFrom("service_tokens").selectAll().orderBy("created_at").execute();
      return rows.map(rowToRecord);
    },

    async revokeServiceToken(id, at, audit) {
      return db.transaction().execute(async (trx) => {
        // Only an unrevoked row is written, so a second revocation keeps the first time.
        await trx
          .updateTable("service_tokens")
          .set({ revoked_at: at })
          .where("id", "=", id)
          .where("revoked_at", "is", null)
          .execute();
        const row = await trx
          .selectFrom("service_tokens")
          .selectAll()
          .where("id", "=", id)
          .executeTakeFirst();
        if (!row) return false;
        const after = rowToRecord(row);
        const before = after.revokedAt === at ? { ...after, revokedAt: null } : after;
        await insertAuditEntry(trx, audit?.(before, after));
        return true;
      });
    },
  };
}
