import { randomUUID } from "node:crypto";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import type { DestinationStream } from "pino";
import type { Config } from "./config.js";
import { type Clock, systemClock } from "./domain/clock.js";
import { createSecretHasher, type SecretHasher } from "./domain/credentials.js";
import { registerErrorHandling } from "./http/error-handler.js";
import { registerJsonBodyParser } from "./http/json-body-parser.js";
import { registerManagementGuard } from "./http/management-guard.js";
import { registerOpenApi } from "./http/openapi.js";
import { apiKeyRoutes } from "./http/routes/api-keys.js";
import { healthRoutes } from "./http/routes/health.js";
import { validatorCompiler } from "./http/validator-compiler.js";
import { createRateLimiter } from "./ratelimit/create-rate-limiter.js";
import type { LimiterLog } from "./ratelimit/fallback-rate-limiter.js";
import { createManagementRateLimit, type ManagementRateLimit } from "./ratelimit/management-rate-limit.js";
import type { RateLimiter } from "./ratelimit/rate-limiter.js";
import { createKeyService, type KeyService } from "./services/key-service.js";
import type { KeyStore } from "./store/key-store.js";
import { openKeyStore } from "./store/open-database.js";

/** Everything the adapters (HTTP, CLI, later MCP) share, built once from configuration. */
export interface Services {
  store: KeyStore;
  limiter: RateLimiter;
  rateLimit: ManagementRateLimit;
  keys: KeyService;
  hasher: SecretHasher;
  clock: Clock;
}

const stderrLog: LimiterLog = {
  warn: (details, message) =>
    process.stderr.write(`${JSON.stringify({ level: "warn", message, ...details })}\n`),
};

/**
 * The composition root: the one place that picks backends from configuration. `log` receives the
 * limiter's notices (Redis lost, Redis back); buildApp passes the Fastify logger.
 */
export async function createServices(
  config: Config,
  clock: Clock = systemClock,
  log: LimiterLog = stderrLog,
): Promise<Services> {
  const store = await openKeyStore(config.databaseUrl);
  const hasher = createSecretHasher(config.secretPepper);
  let limiter: RateLimiter;
  try {
    limiter = await createRateLimiter({ redisUrl: config.redisUrl, clock, log });
  } catch (error) {
    await store.close();
    throw error;
  }
  const rateLimit = createManagementRateLimit({
    limiter,
    loadLimits: (orgId) => store.getLimits(orgId),
    windowSeconds: config.rateWindowSeconds,
    namespace: config.redisPrefix,
    now: () => clock.now(),
  });
  return { store, limiter, rateLimit, hasher, clock, keys: createKeyService({ store, hasher, clock }) };
}

export interface BuildAppOptions {
  config: Config;
  /** Fake clocks in tests; the system clock otherwise. */
  clock?: Clock;
  /** Where JSON logs go (stdout by default); tests capture them to prove no secret is logged. */
  logStream?: DestinationStream;
}

export interface LatchkeyApp {
  app: FastifyInstance;
  services: Services;
}

const MAX_BODY_BYTES = 64 * 1024;

export async function buildApp({ config, clock, logStream }: BuildAppOptions): Promise<LatchkeyApp> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Credentials must never reach a log line, whatever a serializer or a debug session adds.
      redact: {
        paths: ["req.headers.authorization", "headers.authorization", "authorization"],
        censor: "[redacted]",
      },
      ...(logStream ? { stream: logStream } : {}),
    },
    genReqId: () => randomUUID(),
    logController: new LogController({ requestIdLogLabel: "request_id" }),
    bodyLimit: MAX_BODY_BYTES,
    exposeHeadRoutes: false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
  });
  const services = await createServices(config, clock, app.log);
  app.setValidatorCompiler(validatorCompiler);
  registerJsonBodyParser(app);
  // Synchronous onSend hooks: every response passes through them, and an async hook costs a promise.
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("X-Request-Id", request.id);
    done(null, payload);
  });
  app.addHook("onClose", async () => {
    await services.limiter.close();
    await services.store.close();
  });

  registerErrorHandling(app);
  await registerOpenApi(app);
  registerManagementGuard(app, services);
  await app.register(healthRoutes, services);
  await app.register(apiKeyRoutes, { keys: services.keys });
  return { app, services };
}
