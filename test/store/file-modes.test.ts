import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { expect, test } from "vitest";
import { createServices } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createOrganizationWithOwner } from "../../src/services/organizations.js";
import { tempDir } from "../helpers/processes.js";

// The SQLite database holds settings that may contain customer credentials: it, its -wal and -shm are
// readable by their owner only, and so is every directory latchkey creates for them (0700).

const modeOf = (path: string) => statSync(path).mode & 0o777;

async function openAndWrite(path: string) {
  const services = await createServices(loadConfig({ LATCHKEY_DATABASE_URL: `sqlite:${path}` }));
  try {
    await createOrganizationWithOwner(services, "acme");
    expect(existsSync(`${path}-wal`)).toBe(true);
    expect(existsSync(`${path}-shm`)).toBe(true);
    return [modeOf(path), modeOf(`${path}-wal`), modeOf(`${path}-shm`)];
  } finally {
    await services.limiter.close();
    await services.closeDatabase();
  }
}

test("a new database, its -wal and -shm are 0600 and the directories created for it 0700, under umask 022", async () => {
  const previous = process.umask(0o022);
  try {
    const root = tempDir();
    const path = join(root, "data", "nested", "latchkey.db");
    expect(await openAndWrite(path)).toEqual([0o600, 0o600, 0o600]);
    expect(modeOf(join(root, "data"))).toBe(0o700);
    expect(modeOf(join(root, "data", "nested"))).toBe(0o700);
  } finally {
    process.umask(previous);
  }
});

test("a database an earlier version left world-readable is made 0600 when opened", async () => {
  const previous = process.umask(0o022);
  try {
    const path = join(tempDir(), "latchkey.db");
    const old = new SQLite(path);
    old.pragma("journal_mode = WAL");
    old.exec("create table t (x integer)");
    expect(modeOf(path)).toBe(0o644);
    expect(modeOf(`${path}-wal`)).toBe(0o644);
    old.close();
    expect(await openAndWrite(path)).toEqual([0o600, 0o600, 0o600]);
  } finally {
    process.umask(previous);
  }
});
