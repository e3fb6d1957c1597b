// What the in-process benchmarks (micro.mjs, platform-micro.mjs, last-use.mjs) share: the build they
// measure and latchkey's services over a fresh SQLite file, built as a server builds them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

/** An importer of the measured build's modules: `--dist <dir>`, else this checkout's `dist/`. */
export function distModules() {
  const { values } = parseArgs({ options: { dist: { type: "string" } } });
  const dist = resolve(values.dist ?? new URL("../../dist", import.meta.url).pathname);
  return (module) => import(pathToFileURL(join(dist, module)).href);
}

/**
 * `createServices` over a new SQLite file in a temporary folder named after `name`. `file` is the
 * database file (for a second connection); `close()` stops the services and removes the folder.
 */
export async function sqliteServices(load, name) {
  const { createServices } = await load("app.js");
  const { loadConfig } = await load("config.js");
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
      await services.store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
