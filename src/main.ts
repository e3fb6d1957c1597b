import { pathToFileURL } from "node:url";
import { buildApp } from "./app.js";
import { bootstrapFirstOrganization } from "./bootstrap.js";
import { type Config, loadConfig } from "./config.js";
import { shutDown } from "./http/shutdown.js";

/**
 * Starts the HTTP server and stops it gracefully on SIGTERM or SIGINT, finishing requests in flight
 * within LATCHKEY_SHUTDOWN_GRACE_SECONDS (src/http/shutdown.ts).
 */
export async function serve(overrides: Partial<Pick<Config, "port" | "host">> = {}): Promise<void> {
  const config = { ...loadConfig(), ...overrides };
  const { app, services } = await buildApp({ config });
  if (config.bootstrap) await bootstrapFirstOrganization(services);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    shutDown(app, signal, config.shutdownGraceSeconds, (code) => process.exit(code));
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
  await app.listen({ port: config.port, host: config.host });
}

// `npm start` runs this file directly; the CLI imports `serve` instead.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  serve().catch((error: unknown) => {
    process.stderr.write(`latchkey: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
