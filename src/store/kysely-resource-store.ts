import { type Kysely, sql } from "kysely";
import type { ResourceFamilyName } from "../domain/resource-families.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import { recordIdempotentResponse } from "./kysely-idempotency-store.js";
import type { ResourceStore, StoredResource } from "./resource-store.js";
import type { Database, ResourcesTable } from "./schema.js";
import { SQLITE, type StoreDialect } from "./dialect.js";
import { olderThan } from "./keyset-page.js";

function toRow(record: StoredResource): ResourcesTable {
  return {
    id: record.id,
    org_id: record.orgId,
    family: record.family,
    name: record.name,
    enabled: record.enabled ? 1 : 0,
    settings: JSON.stringify(record.settings),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

function fromRow(row: ResourcesTable): StoredResource {
  return {
    id: row.id,
    orgId: row.org_id,
    family: row.family as ResourceFamilyName,
    name: row.name,
    enabled: Number(row.enabled) === 1,
    settings: JSON.parse(row.settings) as Record<string, unknown>,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/**
 * The ResourceStore over Kysely: the same statements on SQLite and PostgreSQL. Its `dialect` locks the
 * row an update replaces on PostgreSQL (so the audit's "before" is what it replaced).
 */
export function createKyselyResourceStore(
  db: Kysely<Database>,
  dialect: StoreDialect = SQLITE,
): ResourceStore {
  return {
    async insertResource(record, maxRecords, audit, response) {
      return db.transaction().execute(async (trx) => {
        await trx
          .insertInto("resource_counts")
          .values({ org_id: record.orgId, family: record.family, count: 0 })
          .onConflict((oc) => oc.columns(["org_id", "family"]).doNothing())
          .execute();
        // The check and the reservation are one statement: on PostgreSQL the row lock queues
        // concurrent creates of one organization and family, and the WHERE is re-evaluated against the
        // committed count; SQLite's single writer gives the same. The quota can never be passed by one.
        const reserved = await trx
          .updateTable("resource_counts")
          .set({ count: sql`count + 1` })
          .where("org_id", "=", record.orgId)
          .where("family", "=", record.family)
          .where("count", "<", maxRecords)
          .returning("count")
          .executeTakeFirst();
        if (!reserved) return { type: "quota_exceeded", maxRecords } as const;
        await trx.insertInto("resources").values(toRow(record)).execute();
        await insertAuditEntry(trx, audit?.(undefined, record));
        await recordIdempotentResponse(trx, response);
        return { type: "created" } as const;
      });
    },

    async findResource({ orgId, family, id }) {
      const row = await db
        .selectFrom("resources")
        .selectAll()
        .where("id", "=", id)
        .where("org_id", "=", orgId)
        .where("family", "=", family)
        .executeTakeFirst();
      return row && fromRow(row);
    },

    async listResources(orgId, family, { limit, after }) {
      let select = db
        .selectFrom("resources")
        .selectAll()
        .where("org_id", "=", orgId)
        .where("family", "=", family);
      if (after) {
        select = select.where(olderThan({ time: after.createdAt, id: after.id }));
      }
      const rows = await select.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
      return rows.map(fromRow);
    },

    async replaceResource({ orgId, family, id }, changes, audit) {
      return db.transaction().execute(async (trx) => {
        const select = trx
          .selectFrom("resources")
          .selectAll()
          .where("id", "=", id)
          .where("org_id", "=", orgId)
          .where("family", "=", family);
        const before = await dialect.lockRows(select).executeTakeFirst();
        if (!before) return undefined;
        const row = await trx
          .updateTable("resources")
          .set({
            name: changes.name,
            enabled: changes.enabled ? 1 : 0,
            settings: JSON.stringify(changes.settings),
            updated_at: changes.updatedAt,
          })
          .where("id", "=", id)
          .where("org_id", "=", orgId)
          .where("family", "=", family)
          .returningAll()
          .executeTakeFirst();
        const after = row && fromRow(row);
        if (after) await insertAuditEntry(trx, audit?.(fromRow(before), after));
        return after;
      });
    },

    async deleteResource({ orgId, family, id }, deletedAt, audit) {
      return db.transaction().execute(async (trx) => {
        const removed = await trx
          .deleteFrom("resources")
          .where("id", "=", id)
          .where("org_id", "=", orgId)
          .where("family", "=", family)
          .returningAll()
          .executeTakeFirst();
        if (removed) {
          await insertAuditEntry(trx, audit?.(fromRow(removed), undefined));
          await trx
            .updateTable("resource_counts")
            .set({ count: sql`count - 1` })
            .where("org_id", "=", orgId)
            .where("family", "=", family)
            .execute();
          await trx
            .insertInto("deleted_resources")
            .values({ id, org_id: orgId, family, deleted_at: deletedAt })
            .execute();
          return "deleted" as const;
        }
        const tombstone = await trx
          .selectFrom("deleted_resources")
          .select("id")
          .where("id", "=", id)
          .where("org_id", "=", orgId)
          .where("family", "=", family)
          .executeTakeFirst();
        return tombstone ? ("already_deleted" as const) : ("not_found" as const);
      });
    },

    async awsExternalId(orgId, candidate) {
      await db
        .insertInto("aws_external_ids")
        .values({ org_id: orgId, external_id: candidate })
        .onConflict((oc) => oc.column("org_id").doNothing())
        .execute();
      const row = await db
        .selectFrom("aws_external_ids")
        .select("external_id")
        .where("org_id", "=", orgId)
        .executeTakeFirstOrThrow();
      return row.external_id;
    },
  };
}
