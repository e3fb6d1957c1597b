import { CompiledQuery, type Kysely, sql } from "kysely";
import { nameTaken } from "../domain/organization-state.js";
import { isRateLimitGroup, type RateLimitGroup } from "../domain/rate-limit-groups.js";
import {
  filtersMetadata,
  isNarrowPrefix,
  listKeysByMetadata,
  namePrefixConditions,
} from "./key-list-filters.js";
import { permissionPattern, recordToRow, rowToRecord } from "./key-rows.js";
import type { KeyStore, LimitChanges, OrganizationLimits, StoredOverride } from "./key-store.js";
import { policiesFromJson } from "../domain/rate-limit-policies.js";
import { writeGroupOverride } from "./rate-limit-overrides.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import { isUniqueViolation } from "./database-errors.js";
import { importKeysInto } from "./kysely-import-keys.js";
import { writeMetadata } from "./key-metadata-rows.js";
import { recordIdempotentResponse } from "./kysely-idempotency-store.js";
import type { StoreDialect } from "./dialect.js";
import type { ApiKeysTable, Database } from "./schema.js";
import { olderThan } from "./keyset-page.js";

/** The overrides of one organization, read with `db` (the store's connection or a transaction). */
async function readLimits(db: Kysely<Database>, orgId: string): Promise<OrganizationLimits> {
  const [org, overrides] = await Promise.all([
    db
      .selectFrom("organizations")
      .select(["max_keys", "max_key_lifetime_days"])
      .where("id", "=", orgId)
      .executeTakeFirst(),
    db
      .selectFrom("rate_limit_overrides")
      .select(["group_name", "quota", "policies", "per"])
      .where("org_id", "=", orgId)
      .execute(),
  ]);
  const stored: Record<string, StoredOverride> = Object.create(null) as Record<string, StoredOverride>;
  const limits: OrganizationLimits = {
    maxKeys: org?.max_keys ?? null,
    quotas: {},
    maxKeyLifetimeDays: org?.max_key_lifetime_days ?? null,
  };
  for (const { group_name, quota, policies, per } of overrides) {
    if (isRateLimitGroup(group_name) && !policies) limits.quotas[group_name] = Number(quota);
    // Overrides made through the admin API (their own windows, the platform's groups) only: a quota set
    // with `org limits --quota` is in `quotas`, as it always was.
    if (policies) {
      stored[group_name] = {
        quota: Number(quota),
        policies: policiesFromJson(JSON.parse(policies) as { quota: number; window_seconds: number }[]),
        per: per === "key" || per === "organization" ? per : null,
      };
    }
  }
  if (Object.keys(stored).length > 0) limits.overrides = stored;
  return limits;
}

async function writeQuota(db: Kysely<Database>, orgId: string, group: RateLimitGroup, quota: number | null) {
  if (quota === null) {
    await writeGroupOverride(db, orgId, group, null);
    return;
  }
  await db
    .insertInto("rate_limit_overrides")
    // A quota alone replaces a stacked override too: one window of the deployment's length.
    .values({ org_id: orgId, group_name: group, quota, policies: null, per: null })
    .onConflict((oc) =>
      oc.columns(["org_id", "group_name"]).doUpdateSet({ quota, policies: null, per: null }),
    )
    .execute();
}

/**
 * The KeyStore over Kysely: the same queries run on SQLite and PostgreSQL, apart where `dialect` says.
 * `db` stays its opener's to close.
 */
export function createKyselyKeyStore(db: Kysely<Database>, dialect: StoreDialect): KeyStore {
  // The reads every authenticated request makes are compiled once, per dialect; a call only binds its
  // values. Building and compiling the query tree each time cost as much as running it.
  // Each with its organization's state: a disabled organization's keys are refused by the very read
  // that authenticates them, and the caches that hold the key learn of it as of any key change.
  const withOrganization = () =>
    db
      .selectFrom("api_keys")
      .innerJoin("organizations", "organizations.id", "api_keys.org_id")
      .selectAll("api_keys")
      .select("organizations.disabled_at as organization_disabled_at");
  const keyByApiId = withOrganization().where("api_keys.api_id", "=", "").compile().sql;
  const keyByIdInOrg = withOrganization()
    .where("api_keys.id", "=", "")
    .where("api_keys.org_id", "=", "")
    .compile().sql;
  async function selectKey(query: string, parameters: string[]) {
    const { rows } = await db.executeQuery<ApiKeysTable & { organization_disabled_at: number | null }>(
      CompiledQuery.raw(query, parameters),
    );
    const row = rows[0];
    if (!row) return undefined;
    // Marked only when disabled: an enabled organization's key reads back exactly as it was stored.
    return row.organization_disabled_at == null
      ? rowToRecord(row)
      : { ...rowToRecord(row), organizationDisabled: true };
  }

  return {
    async createOrganization(org, audit) {
      const taken = () => nameTaken(org.name);
      try {
        await db.transaction().execute(async (trx) => {
          const same = await trx
            .selectFrom("organizations")
            .select("id")
            .where(sql<string>`lower(name)`, "=", org.name.toLowerCase())
            .executeTakeFirst();
          if (same) throw taken();
          await trx
            .insertInto("organizations")
            .values({ id: org.id, name: org.name, created_at: org.createdAt, key_count: 0, max_keys: null })
            .execute();
          await insertAuditEntry(trx, audit?.(undefined, org));
        });
      } catch (error) {
        // Two creates of one name at the same moment: the unique index refuses the second.
        if (isUniqueViolation(error)) throw taken();
        throw error;
      }
    },

    async listOrganizations() {
      const rows = await db
        .selectFrom("organizations")
        .selectAll()
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        createdAt: Number(row.created_at),
        keyCount: Number(row.key_count),
      }));
    },

    async findOrganization(id) {
      const row = await db.selectFrom("organizations").selectAll().where("id", "=", id).executeTakeFirst();
      return row && { id: row.id, name: row.name, createdAt: Number(row.created_at) };
    },

    async hasOrganizations() {
      const row = await db.selectFrom("organizations").select("id").limit(1).executeTakeFirst();
      return row !== undefined;
    },

    getLimits: (orgId) => readLimits(db, orgId),

    async setMaxKeys(orgId, maxKeys) {
      await db.updateTable("organizations").set({ max_keys: maxKeys }).where("id", "=", orgId).execute();
    },

    setQuota: (orgId, group, quota) => writeQuota(db, orgId, group, quota),

    async changeLimits(orgId, changes: LimitChanges, audit) {
      return db.transaction().execute(async (trx) => {
        // The organization row is locked first, so that concurrent changes queue and each records
        // the state its own change started from.
        const select = trx.selectFrom("organizations").select("id").where("id", "=", orgId);
        if (!(await dialect.lockRows(select).executeTakeFirst())) return undefined;
        const before = await readLimits(trx, orgId);
        if (changes.maxKeys !== undefined) {
          await trx
            .updateTable("organizations")
            .set({ max_keys: changes.maxKeys })
            .where("id", "=", orgId)
            .execute();
        }
        if (changes.maxKeyLifetimeDays !== undefined) {
          await trx
            .updateTable("organizations")
            .set({ max_key_lifetime_days: changes.maxKeyLifetimeDays })
            .where("id", "=", orgId)
            .execute();
        }
        for (const [group, quota] of Object.entries(changes.quotas ?? {})) {
          if (isRateLimitGroup(group) && quota !== undefined) await writeQuota(trx, orgId, group, quota);
        }
        for (const [group, limit] of Object.entries(changes.groupLimits ?? {})) {
          await writeGroupOverride(trx, orgId, group, limit);
        }
        const after = await readLimits(trx, orgId);
        await insertAuditEntry(trx, audit?.(before, after));
        return after;
      });
    },

    async insertKey(key, defaultMaxKeys, audit, response) {
      return db.transaction().execute(async (trx) => {
        // One conditional increment is both the quota check and the reservation: on PostgreSQL the
        // row lock it takes makes concurrent creates of one organization queue behind each other.
        const reserved = await trx
          .updateTable("organizations")
          .set({ key_count: sql`key_count + 1` })
          .where("id", "=", key.orgId)
          .where("key_count", "<", sql<number>`coalesce(max_keys, ${defaultMaxKeys})`)
          .returning("key_count")
          .executeTakeFirst();
        if (!reserved) {
          const org = await trx
            .selectFrom("organizations")
            .select("max_keys")
            .where("id", "=", key.orgId)
            .executeTakeFirst();
          return { type: "quota_exceeded", maxKeys: org?.max_keys ?? defaultMaxKeys } as const;
        }
        await trx.insertInto("api_keys").values(recordToRow(key)).execute();
        await writeMetadata(trx, key, false);
        await insertAuditEntry(trx, audit?.(undefined, key));
        await recordIdempotentResponse(trx, response);
        return { type: "created" } as const;
      });
    },

    importKeys: (orgId, keys, defaultMaxKeys, options) =>
      importKeysInto(db, orgId, keys, defaultMaxKeys, options),

    async findKeysBySecretHash(hashes) {
      if (hashes.length === 0) return [];
      // The previous secret too: during a roll's overlap it authenticates, so it can leak.
      const rows = await db
        .selectFrom("api_keys")
        .selectAll()
        .where((eb) => eb.or([eb("secret_hash", "in", hashes), eb("previous_secret_hash", "in", hashes)]))
        .execute();
      return rows.map(rowToRecord);
    },

    findKeyByApiId: (apiId) => selectKey(keyByApiId, [apiId]),

    findKey: (orgId, id) => selectKey(keyByIdInOrg, [id, orgId]),

    async listKeys(orgId, query) {
      if (filtersMetadata(query))
        return (await listKeysByMetadata(db, orgId, query, dialect)).map(rowToRecord);
      let select = db.selectFrom("api_keys").selectAll().where("org_id", "=", orgId);
      if (!query.includeDisabled) select = select.where("enabled", "=", 1);
      if (query.withPermissions.length > 0) {
        select = select.where((eb) =>
          eb.or([
            eb("all_future", "=", 1),
            eb.and(
              query.withPermissions.map(
                (permission) => sql<boolean>`permissions like ${permissionPattern(permission)} escape '\\'`,
              ),
            ),
          ]),
        );
      }
      if (query.namePrefix) {
        const useIndex = dialect.name === "postgres" || (await isNarrowPrefix(db, orgId, query.namePrefix));
        for (const condition of namePrefixConditions(query.namePrefix, dialect, useIndex)) {
          select = select.where(condition);
        }
      }
      const after = query.after;
      if (after) {
        select = select.where(olderThan({ time: after.createdAt, id: after.id }));
      }
      const rows = await select
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(query.limit)
        .execute();
      return rows.map(rowToRecord);
    },

    async changeKey(orgId, id, decide, audit) {
      return db.transaction().execute(async (trx) => {
        const select = trx
          .selectFrom("api_keys")
          .selectAll()
          .where("id", "=", id)
          .where("org_id", "=", orgId);
        const row = await dialect.lockRows(select).executeTakeFirst();
        if (!row) return undefined;
        const current = rowToRecord(row);
        const decided = decide(current);
        const next = recordToRow(decided);
        await trx
          .updateTable("api_keys")
          .set({
            name: next.name,
            description: next.description,
            enabled: next.enabled,
            permissions: next.permissions,
            all_future: next.all_future,
            updated_at: next.updated_at,
            leaked_at: next.leaked_at,
            allowed_cidrs: next.allowed_cidrs,
            metadata: next.metadata,
            secret_hash: next.secret_hash,
            expires_at: next.expires_at,
            previous_secret_hash: next.previous_secret_hash,
            previous_secret_scheme: next.previous_secret_scheme,
            previous_secret_expires_at: next.previous_secret_expires_at,
            rate_limits: next.rate_limits ?? null,
          })
          .where("id", "=", id)
          .execute();
        if (next.metadata !== row.metadata) await writeMetadata(trx, decided, true);
        const changed = rowToRecord(next);
        await insertAuditEntry(trx, audit?.(current, changed));
        return changed;
      });
    },

    async touchLastUsed(key, at, staleBefore) {
      await db
        .updateTable("api_keys")
        .set({ last_used_at: at })
        .where("id", "=", key.id)
        .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", staleBefore)]))
        .execute();
    },

    async recordExpiry(key, now, audit) {
      return db.transaction().execute(async (trx) => {
        // Conditional on nothing having recorded it yet: of every node and sweep, one writes.
        const recorded = await trx
          .updateTable("api_keys")
          .set({ expiry_recorded_at: now })
          .where("id", "=", key.id)
          .where("expires_at", "<=", now)
          .where("expiry_recorded_at", "is", null)
          .returningAll()
          .executeTakeFirst();
        if (!recorded) return false;
        await insertAuditEntry(trx, audit?.(undefined, rowToRecord(recorded)));
        return true;
      });
    },

    async findUnrecordedExpiries(now, limit) {
      const rows = await db
        .selectFrom("api_keys")
        .select(["id", "org_id", "api_id"])
        .where("expires_at", "<=", now)
        .where("expiry_recorded_at", "is", null)
        .limit(limit)
        .execute();
      return rows.map((row) => ({ id: row.id, orgId: row.org_id, apiId: row.api_id }));
    },

    withStartupLock: (work) => dialect.withStartupLock(db, work),

    async ping() {
      await sql`select 1`.execute(db);
    },
  };
}
