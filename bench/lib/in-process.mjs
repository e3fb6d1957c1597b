// What the in-process benchmarks (micro.mjs, platform-micro.mjs, last-use.mjs) share: the build they
// measure and latchkey's services over a fresh SQLite file, built as a server builds them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

/**
 * The measured build's internals, through its one typed entry (src/bench-api.ts): `--dist <dir>`, else
 * this checkout's `dist/`.
 * @returns {Promise<typeof import("../../src/bench-api.js")>}
 */
export function latchkeyInternals() {
  const { values } = parseArgs({ options: { dist: { type: "string" } } });
  return internalsOf(values.dist ?? new URL("../../dist", import.meta.url).pathname);
}

/**
 * The internals of the build in `dist` (a folder holding bench-api.js).
 * @param {string} dist
 * @returns {Promise<typeof import("../../src/bench-api.js")>}
 */
export function internalsOf(dist) {
  return import(pathToFileURL(join(resolve(dist), "bench-api.js")).href);
}

/**
 * `createServices` over a new SQLite file in a temporary folder named after `name`. `file` is the
 * database file (for a second connection); `close()` stops the services and removes the folder.
 * @param {typeof import("../../src/bench-api.js")} latchkey
 * @param {string} name
 */
export async function sqliteServices(latchkey, name) {
  const { createServices, loadConfig } = latchkey;
  const directory = mkdtempSync(join(tmpdir(), `latchkey-${name}-`));
  const file = join(directory, "latchkey.db");
  const services = await createServices(
    loadConfig({
      LATCHKEY_DATABASE_URL: `sqlite:${file}`,
      LATCHKEY_LOG_LEVEL: "warn",
      LATCHKEY_BOOTSTRAP: "off",
    }),
  );
  return {
    services,
    file,
    async close() {
      await services.lastUse.flush();
      await services.limiter.close();
      await services.closeDatabase();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
