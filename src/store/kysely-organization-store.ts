import { type Kysely, sql, type SqlBool } from "kysely";
import { externalIdTaken, nameTaken } from "../domain/organization-state.js";
import { endOfPrefix } from "./key-list-filters.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import { planColumns } from "./kysely-plan-store.js";
import type { OrganizationRecord, OrganizationStore } from "./organization-store.js";
import { writeGroupOverride } from "./rate-limit-overrides.js";
import type { Database, OrganizationsTable } from "./schema.js";
import type { StoreDialect } from "./dialect.js";

function rowToRecord(row: OrganizationsTable): OrganizationRecord {
  const createdAt = Number(row.created_at);
  return {
    id: row.id,
    name: row.name,
    externalId: row.external_id ?? null,
    disabledAt: row.disabled_at === null || row.disabled_at === undefined ? null : Number(row.disabled_at),
    createdAt,
    updatedAt: row.updated_at === null || row.updated_at === undefined ? createdAt : Number(row.updated_at),
  };
}

/** Which unique index refused a row, if one did: PostgreSQL's 23505, SQLite's SQLITE_CONSTRAINT_UNIQUE. */
function uniqueViolationOf(error: unknown): "external_id" | "name" | undefined {
  const { code, message, constraint } = (error ?? {}) as {
    code?: unknown;
    message?: string;
    constraint?: string;
  };
  if (code !== "23505" && code !== "SQLITE_CONSTRAINT_UNIQUE") return undefined;
  return `${constraint ?? ""} ${message ?? ""}`.includes("external_id") ? "external_id" : "name";
}

/**
 * The OrganizationStore over Kysely (both databases). Names and external ids are checked inside the
 * transaction, and the unique indexes settle two writers racing for the same one.
 */
export function createKyselyOrganizationStore(
  db: Kysely<Database>,
  dialect: StoreDialect,
): OrganizationStore {
  /** Throws the 409 of a name or external id another organization holds. */
  async function assertFree(trx: Kysely<Database>, id: string, name?: string, externalId?: string | null) {
    if (name !== undefined) {
      const same = await trx
        .selectFrom("organizations")
        .select("id")
        .where(sql<string>`lower(name)`, "=", name.toLowerCase())
        .where("id", "!=", id)
        .executeTakeFirst();
      if (same) throw nameTaken(name);
    }
    if (externalId !== undefined && externalId !== null) {
      const same = await trx
        .selectFrom("organizations")
        .select("id")
        .where("external_id", "=", externalId)
        .where("id", "!=", id)
        .executeTakeFirst();
      if (same) throw externalIdTaken(externalId);
    }
  }

  async function translated<T>(
    work: () => Promise<T>,
    name?: string,
    externalId?: string | null,
  ): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const violated = uniqueViolationOf(error);
      if (violated === "external_id" && externalId) throw externalIdTaken(externalId);
      if (violated === "name" && name !== undefined) throw nameTaken(name);
      throw error;
    }
  }

  const read = async (trx: Kysely<Database>, id: string, lock = false) => {
    let select = trx.selectFrom("organizations").selectAll().where("id", "=", id);
    if (lock) select = dialect.lockRows(select);
    const row = await select.executeTakeFirst();
    return row && rowToRecord(row);
  };

  return {
    insertOrganization: (org, setup, audit) =>
      translated(
        () =>
          db.transaction().execute(async (trx) => {
            await assertFree(trx, org.id, org.name, org.externalId);
            await trx
              .insertInto("organizations")
              .values({
                id: org.id,
                name: org.name,
                created_at: org.createdAt,
                key_count: 0,
                max_keys: null,
                external_id: org.externalId,
                disabled_at: org.disabledAt,
                updated_at: org.updatedAt,
                ...planColumns(setup.plan ?? {}),
              })
              .execute();
            for (const [group, limit] of Object.entries(setup.limits ?? {}))
              await writeGroupOverride(trx, org.id, group, limit);
            await insertAuditEntry(trx, audit?.(undefined, org));
          }),
        org.name,
        org.externalId,
      ),

    getOrganization: (id) => read(db, id),

    async listOrganizations(query) {
      let select = db.selectFrom("organizations").selectAll();
      if (query.externalId !== undefined) select = select.where("external_id", "=", query.externalId);
      if (query.namePrefix) {
        const name = dialect.name === "postgres" ? sql`name collate "C"` : sql`name`;
        select = select.where(sql<SqlBool>`${name} >= ${query.namePrefix}`);
        const end = endOfPrefix(query.namePrefix);
        if (end !== undefined) select = select.where(sql<SqlBool>`${name} < ${end}`);
      }
      const after = query.after;
      if (after) select = select.where(sql<SqlBool>`(created_at, id) < (${after.createdAt}, ${after.id})`);
      const rows = await select
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(query.limit)
        .execute();
      return rows.map(rowToRecord);
    },

    updateOrganization: (id, changes, at, audit) =>
      translated(
        () =>
          db.transaction().execute(async (trx) => {
            const before = await read(trx, id, true);
            if (!before) return undefined;
            await assertFree(trx, id, changes.name, changes.externalId);
            const after: OrganizationRecord = {
              ...before,
              ...(changes.name === undefined ? {} : { name: changes.name }),
              ...(changes.externalId === undefined ? {} : { externalId: changes.externalId }),
              ...(changes.disabled === undefined
                ? {}
                : { disabledAt: changes.disabled ? (before.disabledAt ?? at) : null }),
              updatedAt: at,
            };
            await trx
              .updateTable("organizations")
              .set({
                name: after.name,
                external_id: after.externalId,
                disabled_at: after.disabledAt,
                updated_at: at,
              })
              .where("id", "=", id)
              .execute();
            await insertAuditEntry(trx, audit?.(before, after));
            return after;
          }),
        changes.name,
        changes.externalId,
      ),
  };
}
