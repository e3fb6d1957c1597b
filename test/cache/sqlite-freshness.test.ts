import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, expect, test } from "vitest";
import { createSqliteFreshness } from "../../src/cache/sqlite-freshness.js";

// The signal behind the SQLite record caches: a request must only ever use an answer of
// `PRAGMA data_version` taken after it started, even though requests that arrive together share one.

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function twoConnections() {
  const directory = mkdtempSync(join(tmpdir(), "latchkey-freshness-"));
  directories.push(directory);
  const file = join(directory, "db.sqlite");
  const server = new Database(file);
  server.pragma("journal_mode = WAL");
  server.exec("create table t (n integer)");
  // Another process in production (the CLI, a second server); another connection is the same to SQLite.
  const other = new Database(file);
  return { server, other };
}

const started = (freshness: ReturnType<typeof createSqliteFreshness>) =>
  new Promise<number>((resume) => freshness.beginRequest(() => resume(freshness.generation())));

test("requests that arrive together wait for one answer taken after all of them started", async () => {
  const { server, other } = twoConnections();
  const freshness = createSqliteFreshness(server);
  const before = freshness.generation();
  const first = started(freshness);
  // Another process commits after the first request started, before the second one does.
  other.exec("insert into t values (1)");
  const second = started(freshness);
  const [seenByFirst, seenBySecond] = await Promise.all([first, second]);
  expect(seenByFirst).toBeGreaterThan(before);
  expect(seenBySecond).toBe(seenByFirst);
});

test("a request that starts after an answer was taken gets a new one", async () => {
  const { server, other } = twoConnections();
  const freshness = createSqliteFreshness(server);
  const first = await started(freshness);
  other.exec("insert into t values (1)");
  // Still in the same turn of the event loop as the first answer: it must not be reused.
  expect(await started(freshness)).toBeGreaterThan(first);
});

test("this process's own writes start a new generation at once", () => {
  const { server } = twoConnections();
  const freshness = createSqliteFreshness(server);
  const before = freshness.generation();
  freshness.noteWrite();
  expect(freshness.generation()).toBeGreaterThan(before);
});
