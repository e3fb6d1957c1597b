import { type Kysely, type RawBuilder, type SqlBool, sql } from "kysely";
import { permissionPattern } from "./key-rows.js";
import type { ListKeysQuery } from "./key-store.js";
import type { ApiKeysTable, Database } from "./schema.js";
import { SQLITE, type StoreDialect } from "./dialect.js";

/**
 * The list's latchkey filters (`metadata[<name>]=<value>`, `name_prefix`). A metadata filter drives
 * the query from `key_metadata`'s index, which holds one member's keys in the list's own order
 * (created_at, then id, newest first), so a page reads about its own rows, from any keyset position;
 * further members are checked by primary key, the spec's filters and the name prefix on the key's row.
 * Without a metadata filter, the name prefix is a range of the (org_id, name) index.
 */

/**
 * The smallest text greater than every text that starts with `prefix`, in code point order: its last
 * code point plus one (carried over U+10FFFF, skipping the surrogates). Undefined when there is none.
 */
export function endOfPrefix(prefix: string): string | undefined {
  const points = [...prefix].map((c) => c.codePointAt(0) as number);
  while (points.length > 0) {
    const last = (points.pop() as number) + 1;
    if (last <= 0x10ffff) {
      points.push(last === 0xd800 ? 0xe000 : last);
      return String.fromCodePoint(...points);
    }
  }
  return undefined;
}

/** Whether the query filters on metadata members (and so is driven by `key_metadata`). */
export function filtersMetadata(query: Pick<ListKeysQuery, "withMetadata">): boolean {
  return query.withMetadata !== undefined && Object.keys(query.withMetadata).length > 0;
}

/** A name prefix matching at most this many keys is read through the name index, then sorted. */
const NARROW_PREFIX = 1000;

/**
 * `name_prefix` as a range of names in code point order: SQLite's own (BINARY) and, on PostgreSQL,
 * the "C" collation's (which its index is built in), whatever the database's default collation.
 * `useIndex: false` writes `+name`, which keeps SQLite off the name index (its planner has no
 * statistics to choose by): the list then walks the keys newest first and stops at a full page.
 */
export function namePrefixConditions(
  prefix: string | undefined,
  dialect: StoreDialect,
  useIndex = true,
): RawBuilder<SqlBool>[] {
  if (prefix === undefined || prefix === "") return [];
  const name =
    dialect.name === "postgres"
      ? sql`api_keys.name collate "C"`
      : useIndex
        ? sql`api_keys.name`
        : sql`+api_keys.name`;
  const end = endOfPrefix(prefix);
  return [sql<SqlBool>`${name} >= ${prefix}`, ...(end === undefined ? [] : [sql<SqlBool>`${name} < ${end}`])];
}

/**
 * Whether few enough keys of the organization have this name prefix that reading them by name and
 * sorting them beats walking every key newest first: one count over at most NARROW_PREFIX entries of
 * the (org_id, name) index. PostgreSQL's planner decides this itself from its statistics; SQLite's
 * has none, so it is asked here.
 */
export async function isNarrowPrefix(db: Kysely<Database>, orgId: string, prefix: string): Promise<boolean> {
  const range = namePrefixConditions(prefix, SQLITE);
  let probe = db
    .selectFrom("api_keys")
    .select(sql`1`.as("one"))
    .where("api_keys.org_id", "=", orgId);
  for (const condition of range) probe = probe.where(condition);
  const { rows } = await sql<{
    n: number;
  }>`select count(*) as n from (${probe.limit(NARROW_PREFIX + 1)}) as hits`.execute(db);
  return Number(rows[0]?.n ?? 0) <= NARROW_PREFIX;
}

/** One page of keys holding every member of `query.withMetadata`, newest first. */
export async function listKeysByMetadata(
  db: Kysely<Database>,
  orgId: string,
  query: ListKeysQuery,
  dialect: StoreDialect,
): Promise<ApiKeysTable[]> {
  const [first, ...others] = Object.entries(query.withMetadata ?? {});
  if (!first) return [];
  // CROSS JOIN keeps key_metadata as the outer loop on SQLite, whose planner has no statistics here.
  let select = db
    .selectFrom("key_metadata as m")
    .crossJoin("api_keys")
    .selectAll("api_keys")
    .whereRef("api_keys.id", "=", "m.key_id")
    .where("m.org_id", "=", orgId)
    .where("m.name", "=", first[0])
    .where("m.value", "=", first[1])
    .where("api_keys.org_id", "=", orgId);
  for (const [name, value] of others) {
    select = select.where((eb) =>
      eb.exists(
        eb
          .selectFrom("key_metadata as o")
          .select(sql`1`.as("one"))
          .whereRef("o.key_id", "=", "api_keys.id")
          .where("o.name", "=", name)
          .where("o.value", "=", value),
      ),
    );
  }
  if (!query.includeDisabled) select = select.where("api_keys.enabled", "=", 1);
  if (query.withPermissions.length > 0) {
    select = select.where((eb) =>
      eb.or([
        eb("api_keys.all_future", "=", 1),
        eb.and(
          query.withPermissions.map(
            (permission) =>
              sql<boolean>`api_keys.permissions like ${permissionPattern(permission)} escape '\\'`,
          ),
        ),
      ]),
    );
  }
  for (const condition of namePrefixConditions(query.namePrefix, dialect)) select = select.where(condition);
  const after = query.after;
  if (after)
    select = select.where(sql<SqlBool>`(m.created_at, m.key_id) < (${after.createdAt}, ${after.id})`);
  return select.orderBy("m.created_at", "desc").orderBy("m.key_id", "desc").limit(query.limit).execute();
}
