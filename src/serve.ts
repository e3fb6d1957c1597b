import type { FastifyBaseLogger } from "fastify";
import type { Logger } from "pino";
import { buildApp } from "./app.js";
import { bootstrapFirstOrganization } from "./bootstrap.js";
import { type Config, loadConfig } from "./config.js";
import { shutDown } from "./http/shutdown.js";
import { addLaterOwner } from "./later-owner.js";
import { listenError } from "./listen-error.js";
import { startAdvice, startSummary } from "./start-log.js";
import { assertDatabaseExists } from "./store/database-location.js";
import { packageVersion } from "./version.js";

/** The last words of every refused start: whatever went wrong, the process does not serve. */
const NOT_STARTED = "latchkey did not start and exits.";

/**
 * Starts the HTTP server and stops it gracefully on SIGTERM or SIGINT, finishing requests in flight
 * within LATCHKEY_SHUTDOWN_GRACE_SECONDS (src/http/shutdown.ts). A start that cannot go on rejects with
 * a message that says what to change and that the process exits.
 */
export async function serve(overrides: Partial<Pick<Config, "port" | "host">> = {}): Promise<void> {
  try {
    await start(overrides);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const refused = new Error(`${message} ${NOT_STARTED}`);
    refused.cause = error;
    throw refused;
  }
}

async function start(overrides: Partial<Pick<Config, "port" | "host">>): Promise<void> {
  const config = { ...loadConfig(), ...overrides };
  // The server makes its database on the first start, unless told not to (LATCHKEY_DATABASE_CREATE=off).
  assertDatabaseExists(config.databaseUrl, config.databaseCreate !== false);
  const { app, services, routeTable, releaseStartWarnings } = await buildApp({
    config,
    holdStartWarnings: true,
  });
  // What the first start did is said after the start line, where a person reading the terminal sees it last.
  const notices: string[] = [];
  const tell = (text: string) => notices.push(text);
  try {
    const firstStart = await bootstrapFirstOrganization(services, config, tell);
    if (!firstStart) await addLaterOwner(services, config, app.log, tell);
  } catch (error) {
    releaseStartWarnings();
    await app.close();
    throw error;
  }
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    shutDown(app, signal, config.shutdownGraceSeconds, (code) => process.exit(code));
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
  const level = app.log.level;
  try {
    // Fastify's own "Server listening at" line would come before latchkey's start line, which
    // already names every address: info lines are off for the one synchronous moment of the listen.
    await app.ready();
    if (VERBOSE_LEVELS.has(level)) app.log.level = "warn";
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    app.log.level = level;
    releaseStartWarnings();
    await tellAfterTheLog(app.log, notices);
    await app.close();
    throw listenError(error, config);
  }
  app.log.level = level;
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const summary = startSummary(config, routeTable, packageVersion(), `http://${host}:${port}`, {
    limiterHealthy: services.limiter.healthy,
  });
  app.log.info(summary, "latchkey started");
  releaseStartWarnings();
  for (const advice of startAdvice(config)) app.log.warn({ setting: advice.setting }, advice.message);
  await tellAfterTheLog(app.log, notices);
}

/** Levels that write Fastify's info line of the listen. */
const VERBOSE_LEVELS = new Set(["info", "debug", "trace"]);

/**
 * Writes `notices` to standard error once the log lines before them are out: the JSON log is written
 * asynchronously, standard error at once, and a terminal would show them the wrong way round.
 */
async function tellAfterTheLog(log: FastifyBaseLogger, notices: string[]): Promise<void> {
  if (notices.length === 0) return;
  await new Promise<void>((resolve) => (log as unknown as Logger).flush(() => resolve()));
  for (const text of notices) process.stderr.write(text);
}
