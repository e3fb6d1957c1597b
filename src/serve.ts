import { buildApp } from "./app.js";
import { bootstrapFirstOrganization } from "./bootstrap.js";
import { type Config, loadConfig } from "./config.js";
import { shutDown } from "./http/shutdown.js";
import { startSummary } from "./start-log.js";
import { assertDatabaseExists } from "./store/database-location.js";
import { packageVersion } from "./version.js";

/**
 * Starts the HTTP server and stops it gracefully on SIGTERM or SIGINT, finishing requests in flight
 * within LATCHKEY_SHUTDOWN_GRACE_SECONDS (src/http/shutdown.ts).
 */
export async function serve(overrides: Partial<Pick<Config, "port" | "host">> = {}): Promise<void> {
  const config = { ...loadConfig(), ...overrides };
  // The server makes its database on the first start, unless told not to (LATCHKEY_DATABASE_CREATE=off).
  assertDatabaseExists(config.databaseUrl, config.databaseCreate !== false);
  const { app, services, routeTable } = await buildApp({ config });
  await bootstrapFirstOrganization(services, config);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    shutDown(app, signal, config.shutdownGraceSeconds, (code) => process.exit(code));
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  app.log.info(
    startSummary(config, routeTable, packageVersion(), `http://${host}:${port}`),
    "latchkey started",
  );
}
