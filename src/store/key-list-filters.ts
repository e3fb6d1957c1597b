import { type ExpressionBuilder, type Expression, type SqlBool, sql } from "kysely";
import type { ListKeysQuery } from "./key-store.js";
import type { Database } from "./schema.js";

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

/**
 * The list's latchkey filters as conditions on `api_keys`: each metadata member an `id in` the index
 * of `key_metadata`, the name prefix a range of the (org_id, name) index. `postgres`: names are
 * compared in the "C" collation there, code point order like SQLite's, so that the range is exactly
 * the names with the prefix whatever the database's collation.
 */
export function listFilterConditions(
  eb: ExpressionBuilder<Database, "api_keys">,
  orgId: string,
  query: Pick<ListKeysQuery, "withMetadata" | "namePrefix">,
  postgres: boolean,
): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [];
  for (const [name, value] of Object.entries(query.withMetadata ?? {})) {
    conditions.push(
      eb(
        "id",
        "in",
        eb
          .selectFrom("key_metadata")
          .select("key_id")
          .where("org_id", "=", orgId)
          .where("name", "=", name)
          .where("value", "=", value),
      ),
    );
  }
  const prefix = query.namePrefix;
  if (prefix !== undefined && prefix !== "") {
    const name = postgres ? sql<string>`name collate "C"` : sql<string>`name`;
    conditions.push(eb(name, ">=", prefix));
    const end = endOfPrefix(prefix);
    if (end !== undefined) conditions.push(eb(name, "<", end));
  }
  return conditions;
}
