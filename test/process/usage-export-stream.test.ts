import { readFileSync } from "node:fs";
import { get } from "node:http";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { expect, test, vi } from "vitest";
import { latchkey, startServer, tempDir } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";

vi.setConfig({ testTimeout: 300_000 });

/**
 * The platform's export of 31 days over 1,000 organizations (744,000 hourly rows, about 140 MB of
 * NDJSON) from a real server process whose heap is limited to half of that: the answer starts before the
 * last organization is read, and the server's peak memory (VmHWM) stays within 32 MB of where it was.
 */

const HOUR = 3_600_000;
const FROM = Date.parse("2026-10-01T00:00:00Z");
const TO = FROM + 31 * 24 * HOUR;
const ORGANIZATIONS = 1000;
/** The server's old-space limit, in MB: well under the export's 130 MB. */
const HEAP_MB = 64;

/** Peak resident memory of a process, in bytes (Linux). */
function peakMemory(pid: number): number {
  const kilobytes = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kilobytes) * 1024;
}

function seed(path: string): void {
  const db = new SQLite(path);
  db.pragma("busy_timeout = 5000");
  db.exec(`
    with recursive n(i) as (select 0 union all select i + 1 from n where i < ${ORGANIZATIONS - 1})
    insert into organizations (id, name, created_at, key_count, external_id)
      select printf('org_%05d', i), printf('customer %05d', i), ${FROM}, 0, printf('cus_%d', i) from n;
    with recursive h(j) as (select 0 union all select j + 1 from h where j < ${31 * 24 - 1})
    insert into usage_hours (org_id, hour_start, images)
      select o.id, ${FROM} + h.j * ${HOUR}, 1 + h.j % 7 from organizations o, h where o.id like 'org_0%';
    with recursive h(j) as (select 0 union all select j + 1 from h where j < ${31 * 24 - 1})
    insert into decision_hours (org_id, hour_start, allowed, refused)
      select o.id, ${FROM} + h.j * ${HOUR}, 100 + h.j, h.j % 3 from organizations o, h where o.id like 'org_0%';
  `);
  db.close();
}

/** Reads an export; `onFirstChunk` runs once the first bytes arrived, before anything more is read. */
function readExport(
  url: string,
  token: string,
  onFirstChunk: () => void,
): Promise<{ status: number; bytes: number; lines: number; tail: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { "x-latchkey-service-token": token } }, (response) => {
      let bytes = 0;
      let lines = 0;
      let tail = "";
      let first = true;
      response.on("data", (chunk: Buffer) => {
        if (first) {
          first = false;
          onFirstChunk();
        }
        bytes += chunk.length;
        for (const byte of chunk) if (byte === 10) lines++;
        tail = (tail + chunk.toString("utf8")).slice(-4096);
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes, lines, tail }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

test("31 days over 1,000 organizations: streamed as read, in flat memory (SQLite)", async () => {
  const dir = tempDir();
  const path = join(dir, "latchkey.db");
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${path}`, LATCHKEY_BOOTSTRAP: "off" };
  const { token } = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "billing", "--scope", "provision", "--json"], env))
      .stdout,
  ) as { token: string };
  seed(path);
  // A heap smaller than the export: a server that held the rows would die of it.
  const server = await startServer(
    { ...env, LATCHKEY_LOG_LEVEL: "warn", NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` },
    await freePort(),
  );
  const pid = server.child.pid ?? 0;
  const query = `from=${new Date(FROM).toISOString()}&to=${new Date(TO).toISOString()}`;

  // Warm: the route, its code paths and a first read, so the peak below is the export's own.
  const small = `from=${new Date(FROM).toISOString()}&to=${new Date(FROM + 24 * HOUR).toISOString()}`;
  expect((await readExport(`${server.baseUrl}/v1/admin/usage/export?${small}`, token, () => {})).lines).toBe(
    24 * ORGANIZATIONS,
  );
  const before = peakMemory(pid);

  // An organization that sorts after every other, added once the first rows have arrived: it is in the
  // answer only if the server had not read the last organizations before it started to answer.
  const late = () => {
    const db = new SQLite(path);
    db.pragma("busy_timeout = 5000");
    db.exec(`insert into organizations (id, name, created_at, key_count) values ('org_zzzzz', 'late', ${FROM}, 0);
      insert into usage_hours (org_id, hour_start, images) values ('org_zzzzz', ${FROM}, 5);`);
    db.close();
  };
  const exported = await readExport(`${server.baseUrl}/v1/admin/usage/export?${query}`, token, late);
  const after = peakMemory(pid);

  expect(exported.status).toBe(200);
  expect(exported.lines).toBe(31 * 24 * ORGANIZATIONS + 1);
  expect(exported.bytes).toBeGreaterThan(120_000_000);
  expect(exported.tail.trim().split("\n").at(-1)).toContain('"organization_id":"org_zzzzz"');
  const growth = after - before;
  console.log(
    `usage export (SQLite): ${exported.lines} rows, ${(exported.bytes / 1e6).toFixed(0)} MB; server peak memory ` +
      `${(before / 1e6).toFixed(0)} MB before, ${(after / 1e6).toFixed(0)} MB after (+${(growth / 1e6).toFixed(1)} MB)`,
  );
  // Holding the rows would take more than the export's size; streaming holds a chunk and one read.
  expect(growth).toBeLessThan(32_000_000);
});
