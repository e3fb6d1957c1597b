import { expect, test } from "vitest";
import { changesCachedData } from "../../src/store/sqlite-statement-cache.js";

// Which statements make the SQLite record caches read again (src/cache/sqlite-freshness.ts).

test("reads, transactions and the data_version check change nothing cached", () => {
  for (const sql of [
    'select * from "api_keys" where "api_id" = ?',
    "begin immediate",
    "commit",
    "rollback",
    "PRAGMA data_version",
  ]) {
    expect(changesCachedData(sql), sql).toBe(false);
  }
});

test("credits, usage and a key's last use alone are not changes; every other write is", () => {
  expect(changesCachedData("insert into credit_periods (org_id) select ?")).toBe(false);
  expect(changesCachedData("insert into usage_hours (org_id) select ?")).toBe(false);
  const lastUse =
    'update "api_keys" set "last_used_at" = ? where "id" = ? and ("last_used_at" is null or "last_used_at" < ?)';
  expect(changesCachedData(lastUse)).toBe(false);

  expect(changesCachedData('update "api_keys" set "last_used_at" = ?, "enabled" = ? where "id" = ?')).toBe(
    true,
  );
  expect(changesCachedData('update "api_keys" set "enabled" = ? where "id" = ?')).toBe(true);
  expect(changesCachedData('insert into "api_keys" ("id") values (?)')).toBe(true);
  expect(changesCachedData('delete from "service_tokens" where "id" = ?')).toBe(true);
  expect(changesCachedData("vacuum")).toBe(true);
});
