import { type RawBuilder, type SqlBool, sql } from "kysely";

/**
 * The rows after a keyset position in a list ordered newest first (`time` desc, then `id` desc): older,
 * or as old with a smaller id. Every list of the API pages this way (`next_page_start`), so the
 * condition has one home.
 */
export function olderThan(
  position: { time: number; id: string },
  timeColumn = "created_at",
): RawBuilder<SqlBool> {
  const time = sql.ref(timeColumn);
  return sql<SqlBool>`(${time} < ${position.time} or (${time} = ${position.time} and ${sql.ref("id")} < ${position.id}))`;
}
