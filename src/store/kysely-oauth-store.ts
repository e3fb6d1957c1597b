import type { Kysely } from "kysely";
import type { ConsoleRole } from "../domain/console-roles.js";
import type { Permission } from "../domain/permissions.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import type { FoundConnection, McpConnection, OauthCode, OauthStore } from "./oauth-store.js";
import type { Database, McpConnectionsTable, OauthCodesTable } from "./schema.js";

const names = (text: string) => (text === "" ? [] : (text.split(",") as Permission[]));

const toCode = (row: OauthCodesTable): OauthCode => ({
  codeHash: row.code_hash,
  clientId: row.client_id,
  userId: row.user_id,
  orgId: row.org_id,
  permissions: names(row.permissions),
  redirectUri: row.redirect_uri,
  codeChallenge: row.code_challenge,
  resource: row.resource,
  expiresAt: Number(row.expires_at),
  usedAt: row.used_at === null ? null : Number(row.used_at),
  connectionId: row.connection_id,
});

const toConnection = (row: McpConnectionsTable): McpConnection => ({
  id: row.id,
  orgId: row.org_id,
  userId: row.user_id,
  clientId: row.client_id,
  clientName: row.client_name,
  permissions: names(row.permissions),
  resource: row.resource,
  accessHash: row.access_hash,
  accessExpiresAt: Number(row.access_expires_at),
  refreshHash: row.refresh_hash,
  createdAt: Number(row.created_at),
  revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
});

/** A connection with its organization's state and its user's role there now. */
function foundConnections(db: Kysely<Database>) {
  return db
    .selectFrom("mcp_connections")
    .innerJoin("organizations", "organizations.id", "mcp_connections.org_id")
    .innerJoin("memberships", (join) =>
      join
        .onRef("memberships.user_id", "=", "mcp_connections.user_id")
        .onRef("memberships.org_id", "=", "mcp_connections.org_id"),
    )
    .selectAll("mcp_connections")
    .select(["organizations.disabled_at as organization_disabled_at", "memberships.role as grantor_role"]);
}

type FoundRow = McpConnectionsTable & { organization_disabled_at?: number | null; grantor_role: string };
const toFound = (row: FoundRow): FoundConnection => ({
  ...toConnection(row),
  organizationDisabled: row.organization_disabled_at != null,
  grantorRole: row.grantor_role as ConsoleRole,
});

export function createKyselyOauthStore(db: Kysely<Database>): OauthStore {
  return {
    async insertClient(client) {
      await db
        .insertInto("oauth_clients")
        .values({
          client_id: client.clientId,
          client_name: client.clientName,
          redirect_uris: JSON.stringify(client.redirectUris),
          created_at: client.createdAt,
        })
        .execute();
    },

    async findClient(clientId) {
      const row = await db
        .selectFrom("oauth_clients")
        .selectAll()
        .where("client_id", "=", clientId)
        .executeTakeFirst();
      return (
        row && {
          clientId: row.client_id,
          clientName: row.client_name,
          redirectUris: JSON.parse(row.redirect_uris) as string[],
          createdAt: Number(row.created_at),
        }
      );
    },

    async insertCode(code, at) {
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable("oauth_clients")
          .set({ consented_at: at })
          .where("client_id", "=", code.clientId)
          .where("consented_at", "is", null)
          .execute();
        await trx
          .insertInto("oauth_codes")
          .values({
            code_hash: code.codeHash,
            client_id: code.clientId,
            user_id: code.userId,
            org_id: code.orgId,
            permissions: code.permissions.join(","),
            redirect_uri: code.redirectUri,
            code_challenge: code.codeChallenge,
            resource: code.resource,
            expires_at: code.expiresAt,
            used_at: null,
            connection_id: null,
          })
          .execute();
      });
    },

    async takeCode(codeHash, at) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom("oauth_codes")
          .selectAll()
          .where("code_hash", "=", codeHash)
          .executeTakeFirst();
        if (!row) return undefined;
        // Only the first exchange finds it unused: the update is conditional, and counted.
        const result = await trx
          .updateTable("oauth_codes")
          .set({ used_at: at })
          .where("code_hash", "=", codeHash)
          .where("used_at", "is", null)
          .executeTakeFirst();
        const code = toCode(row);
        return Number(result.numUpdatedRows) === 1
          ? { ...code, usedAt: null }
          : { ...code, usedAt: code.usedAt ?? at };
      });
    },

    async insertConnection(connection, codeHash, mayGrant, audit) {
      return db.transaction().execute(async (trx) => {
        const membership = await trx
          .selectFrom("memberships")
          .select("role")
          .where("user_id", "=", connection.userId)
          .where("org_id", "=", connection.orgId)
          .executeTakeFirst();
        if (!membership || !mayGrant(membership.role as ConsoleRole)) return false;
        await trx
          .insertInto("mcp_connections")
          .values({
            id: connection.id,
            org_id: connection.orgId,
            user_id: connection.userId,
            client_id: connection.clientId,
            client_name: connection.clientName,
            permissions: connection.permissions.join(","),
            resource: connection.resource,
            access_hash: connection.accessHash,
            access_expires_at: connection.accessExpiresAt,
            refresh_hash: connection.refreshHash,
            created_at: connection.createdAt,
            revoked_at: null,
          })
          .execute();
        await trx
          .updateTable("oauth_codes")
          .set({ connection_id: connection.id })
          .where("code_hash", "=", codeHash)
          .execute();
        await insertAuditEntry(trx, audit);
        return true;
      });
    },

    // Each read joins the organization (disabled: 403) and the user's membership, whose role the
    // service checks: a connection is only as good as its user's standing now.
    async findConnectionByAccess(accessHash) {
      const row = await foundConnections(db).where("access_hash", "=", accessHash).executeTakeFirst();
      return row && toFound(row);
    },

    async findConnectionByRefresh(refreshHash) {
      const row = await foundConnections(db).where("refresh_hash", "=", refreshHash).executeTakeFirst();
      return row && toFound(row);
    },

    async findRotatedRefresh(refreshHash) {
      const row = await db
        .selectFrom("mcp_rotated_refresh_tokens")
        .innerJoin("mcp_connections", "mcp_connections.id", "mcp_rotated_refresh_tokens.connection_id")
        .select(["mcp_connections.id", "mcp_connections.org_id"])
        .where("mcp_rotated_refresh_tokens.refresh_hash", "=", refreshHash)
        .executeTakeFirst();
      return row && { connectionId: row.id, orgId: row.org_id };
    },

    async rotateTokens(refreshHash, next, at) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom("mcp_connections")
          .select("id")
          .where("refresh_hash", "=", refreshHash)
          .where("revoked_at", "is", null)
          .executeTakeFirst();
        if (!row) return false;
        // Conditional on the token still being current: of two refreshes racing, one rotates.
        const result = await trx
          .updateTable("mcp_connections")
          .set({
            access_hash: next.accessHash,
            access_expires_at: next.accessExpiresAt,
            refresh_hash: next.refreshHash,
          })
          .where("id", "=", row.id)
          .where("refresh_hash", "=", refreshHash)
          .where("revoked_at", "is", null)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) return false;
        await trx
          .insertInto("mcp_rotated_refresh_tokens")
          .values({ refresh_hash: refreshHash, connection_id: row.id, rotated_at: at })
          .execute();
        return true;
      });
    },

    async listConnections(orgId) {
      const rows = await db
        .selectFrom("mcp_connections")
        .selectAll()
        .where("org_id", "=", orgId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
      return rows.map(toConnection);
    },

    async revokeConnection(orgId, id, at, audit) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom("mcp_connections")
          .select("id")
          .where("org_id", "=", orgId)
          .where("id", "=", id)
          .executeTakeFirst();
        if (!row) return "absent" as const;
        const result = await trx
          .updateTable("mcp_connections")
          .set({ revoked_at: at })
          .where("id", "=", id)
          .where("revoked_at", "is", null)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return "unchanged" as const;
        await insertAuditEntry(trx, audit);
        return "revoked" as const;
      });
    },

    async deleteUnconsentedClients(before) {
      const result = await db
        .deleteFrom("oauth_clients")
        .where("consented_at", "is", null)
        .where("created_at", "<", before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async deleteCodesExpiredBefore(before) {
      const result = await db.deleteFrom("oauth_codes").where("expires_at", "<", before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
