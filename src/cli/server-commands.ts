import type { Command } from "commander";
import { loadConfig } from "../config.js";
import { parseInteger } from "./parse.js";

// The server and database modules are imported when a command runs, not when the CLI starts: every
// `latchkey keys ...` invocation would otherwise pay for loading Fastify and the database drivers.
export function registerServerCommands(program: Command): void {
  program
    .command("serve")
    .description(
      "Start the HTTP server (database from LATCHKEY_DATABASE_URL, Redis from LATCHKEY_REDIS_URL).",
    )
    .option("--port <port>", "TCP port (default 8080, env PORT)", parseInteger)
    .option("--host <host>", "interface to bind (default 127.0.0.1, env HOST)")
    .action(async (options: { port?: number; host?: string }) => {
      const { serve } = await import("../serve.js");
      await serve({
        ...(options.port !== undefined ? { port: options.port } : {}),
        ...(options.host !== undefined ? { host: options.host } : {}),
      });
    });

  program
    .command("migrate")
    .description("Bring the database schema up to date (the server also does this at start).")
    .action(async () => {
      const { openKeyStore } = await import("../store/open-database.js");
      const { assertDatabaseExists, describeDatabase } = await import("../store/database-location.js");
      const config = loadConfig();
      assertDatabaseExists(config.databaseUrl, config.databaseCreate === true);
      const store = await openKeyStore(config.databaseUrl);
      await store.close();
      process.stdout.write(`Database schema is up to date (${describeDatabase(config.databaseUrl)}).\n`);
    });
}
