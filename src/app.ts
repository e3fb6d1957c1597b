import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import type { DestinationStream } from "pino";
import type { Config } from "./config.js";
import { type Clock, systemClock } from "./domain/clock.js";
import { createSecretHasher, type SecretHasher } from "./domain/credentials.js";
import { EMPTY_ROUTE_TABLE, parseRouteTable, type RouteTable } from "./domain/route-table.js";
import { decisionHandover } from "./http/decision-handover.js";
import { registerErrorHandling } from "./http/error-handler.js";
import { bodyReplay } from "./http/body-replay.js";
import { fastAuthorize } from "./http/fast-authorize.js";
import { fastKeyRead } from "./http/fast-key-read.js";
import { registerFrontRoutes } from "./http/front-routes.js";
import { frontedServer } from "./http/front-server.js";
import { registerJsonBodyParser } from "./http/json-body-parser.js";
import { endJsonLine } from "./http/json-line.js";
import { keyBodies } from "./http/key-response.js";
import { loggerOptions } from "./http/logger-options.js";
import { registerManagementGuard } from "./http/management-guard.js";
import { registerMetrics } from "./http/metrics-route.js";
import { registerOpenApi } from "./http/openapi.js";
import { apiKeyRoutes } from "./http/routes/api-keys.js";
import { auditRoutes } from "./http/routes/audit.js";
import { authorizeRoutes } from "./http/routes/authorize.js";
import { forwardAuthRoutes } from "./http/routes/forward-auth.js";
import { healthRoutes } from "./http/routes/health.js";
import { resourceFamilyRoutes } from "./http/routes/resource-families.js";
import { usageRoutes } from "./http/routes/usage.js";
import { validatorCompiler } from "./http/validator-compiler.js";
import type { Freshness } from "./cache/freshness.js";
import { allowedHostnames } from "./mcp/allowed-hosts.js";
import { mcpRoutes } from "./mcp/route.js";
import { mcpTools } from "./mcp/tools.js";
import { createRateLimiter } from "./ratelimit/create-rate-limiter.js";
import { openRedis } from "./ratelimit/redis-connection.js";
import { createMetrics, type LatchkeyMetrics } from "./metrics/metrics.js";
import {
  type AccessSurface,
  countRecordCacheReads,
  observeAccess,
  observeRateLimit,
} from "./metrics/observe.js";
import type { LimiterLog } from "./ratelimit/fallback-rate-limiter.js";
import { createManagementRateLimit, type ManagementRateLimit } from "./ratelimit/management-rate-limit.js";
import type { RateLimiter } from "./ratelimit/rate-limiter.js";
import { type AccessControl, createAccessControl } from "./services/access-decision.js";
import { createCreditLedger } from "./services/credits.js";
import { type AuditLog, createAuditLog } from "./services/audit-log.js";
import { createKeyService, type KeyService } from "./services/key-service.js";
import { createLastUseRecorder, type LastUseRecorder } from "./services/last-use.js";
import { createPlanService, type PlanService } from "./services/plans.js";
import { createResourceServices, type ResourceServices } from "./services/resource-service.js";
import { type AwsExternalIdService, createAwsExternalIdService } from "./services/aws-external-id.js";
import { createServiceTokenService, type ServiceTokenService } from "./services/service-tokens.js";
import { createUsageService, type UsageService } from "./services/usage.js";
import type { KeyStore } from "./store/key-store.js";
import { openStores } from "./store/open-database.js";
import { withRecordVersions } from "./store/record-version-stores.js";
import { stderrLog } from "./warning-log.js";

/**
 * Everything the adapters (REST, authorize, forward-auth, MCP, the CLI) share, built once from
 * configuration.
 */
export interface Services {
  store: KeyStore;
  limiter: RateLimiter;
  rateLimit: ManagementRateLimit;
  keys: KeyService;
  hasher: SecretHasher;
  clock: Clock;
  /** The one access decision behind REST, authorize, forward-auth and MCP. */
  access: AccessControl;
  plans: PlanService;
  serviceTokens: ServiceTokenService;
  usage: UsageService;
  /** Reads the audit trail (`GET /v1/audit`). */
  audit: AuditLog;
  /** Throttled, non-blocking writes of keys' `last_used_at`. */
  lastUse: LastUseRecorder;
  /** Proxies, storage destinations and OG configurations, one service per family (REST and MCP). */
  resources: ResourceServices;
  /** The organization's AWS external id for storage destinations. */
  awsExternalIds: AwsExternalIdService;
  /** Prometheus metrics; null with LATCHKEY_METRICS=off. */
  metrics: LatchkeyMetrics | null;
  /** What keeps the SQLite record caches exact; absent on PostgreSQL (src/cache/freshness.ts). */
  freshness?: Freshness;
  /** Entries held per record cache. */
  cacheSizes(): Record<string, number>;
}

/**
 * The composition root: the one place that picks backends from configuration. `log` receives the
 * limiter's notices (Redis lost, Redis back); buildApp passes the Fastify logger.
 */
export async function createServices(
  config: Config,
  clock: Clock = systemClock,
  log: LimiterLog = stderrLog,
): Promise<Services> {
  const stores = await openStores(config.databaseUrl);
  const redis = config.redisUrl === undefined ? undefined : openRedis(config.redisUrl);
  let limiter: RateLimiter | undefined;
  const metrics = config.metrics
    ? createMetrics({
        redisConfigured: config.redisUrl !== undefined,
        limiterHealthy: () => limiter?.healthy ?? false,
        databaseDialect: stores.dialect,
        databasePool: stores.poolStats,
      })
    : null;
  const versioned =
    redis && stores.dialect === "postgres"
      ? withRecordVersions(stores.keys, {
          redis: async () => redis,
          prefix: config.redisPrefix,
          cache: config.recordCache,
          usable: () => limiter?.healthy ?? false,
          now: () => clock.now(),
          log,
          ...(metrics ? { onRead: countRecordCacheReads(metrics) } : {}),
        })
      : undefined;
  const store = versioned?.keys ?? stores.keys;
  const hasher = createSecretHasher(config.secretPepper);
  try {
    limiter = await createRateLimiter({
      redisUrl: config.redisUrl,
      clock,
      log,
      ...(redis ? { redis } : {}),
      ...(versioned ? { onRecover: versioned.clear } : {}),
    });
  } catch (error) {
    redis?.disconnect();
    await store.close();
    throw error;
  }
  const sharedLimiter = limiter;
  const rateLimit = observeRateLimit(
    createManagementRateLimit({
      limiter,
      loadLimits: (orgId) => store.getLimits(orgId),
      windowSeconds: config.rateWindowSeconds,
      // Where the store's reads are exactly cached, overrides need no second, time-based cache: a
      // change applies on the next request. Elsewhere (PostgreSQL) they are read at most once a second.
      ...(stores.freshness ? { overridesTtlMs: 0 } : {}),
      namespace: config.redisPrefix,
      ...(versioned?.versions ? { versions: versioned.versions } : {}),
      now: () => clock.now(),
    }),
    metrics,
  );
  const plans = createPlanService(stores.plans, { imageCredits: config.defaultImageCredits }, clock);
  const credits = createCreditLedger(stores.plans, clock);
  const lastUse = createLastUseRecorder({ store, clock, log });
  return {
    store,
    limiter: sharedLimiter,
    rateLimit,
    hasher,
    clock,
    keys: createKeyService({ store, hasher, clock }),
    access: createAccessControl({
      keys: store,
      hasher,
      rateLimit,
      plans,
      credits,
      lastUse,
      ...(versioned?.callers ? { callers: versioned.callers } : {}),
    }),
    plans,
    serviceTokens: createServiceTokenService({ store: stores.serviceTokens, hasher, clock }),
    usage: createUsageService({ store: stores.plans, plans, clock }),
    audit: createAuditLog(stores.audit),
    lastUse,
    resources: createResourceServices({ store: stores.resources, clock }),
    awsExternalIds: createAwsExternalIdService(stores.resources),
    metrics,
    ...(stores.freshness ? { freshness: stores.freshness } : {}),
    cacheSizes: versioned?.cacheSizes ?? stores.cacheSizes,
  };
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
  /** The forward-auth route table (LATCHKEY_ROUTES), for the start log. */
  routeTable: RouteTable;
}

const MAX_BODY_BYTES = 64 * 1024;

/** Every request's id (`X-Request-Id`, `request_id` in the logs), whichever path answers it. */
const newRequestId = () => randomUUID();

/** The forward-auth route table; a bad file stops the start with a message naming its line. */
function loadRouteTable(path: string | undefined): RouteTable {
  if (!path) return EMPTY_ROUTE_TABLE;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`LATCHKEY_ROUTES: cannot read ${path}: ${(error as Error).message}`);
  }
  return parseRouteTable(text, `LATCHKEY_ROUTES ${path}`);
}

export async function buildApp({ config, clock, logStream }: BuildAppOptions): Promise<LatchkeyApp> {
  const routeTable = loadRouteTable(config.routesFile);
  const server = frontedServer();
  const app = Fastify({
    serverFactory: server.serverFactory,
    logger: loggerOptions(config, logStream),
    genReqId: newRequestId,
    logController: new LogController({ requestIdLogLabel: "request_id" }),
    bodyLimit: MAX_BODY_BYTES,
    exposeHeadRoutes: true,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
  });
  const services = await createServices(config, clock, app.log);
  const freshness = services.freshness;
  if (freshness) {
    // First of all hooks: the caches ask the database again after every new request started, once
    // for all the requests that arrived in the same turn of the event loop (sqlite-freshness.ts).
    app.addHook("onRequest", (_request, _reply, done) => {
      freshness.beginRequest(done);
    });
  }
  app.setValidatorCompiler(validatorCompiler);
  registerJsonBodyParser(app);
  // Synchronous onSend hooks: every response passes through them, and an async hook costs a promise.
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("X-Request-Id", request.id);
    done(null, endJsonLine(reply, payload));
  });
  app.addHook("onClose", async () => {
    await services.limiter.close();
    await services.lastUse.flush();
    await services.store.close();
  });

  registerErrorHandling(app);
  // Before every route, so that every response is counted; each adapter's decisions get their label.
  const responseSeries = services.metrics ? registerMetrics(app, services.metrics) : undefined;
  const accessFor = (surface: AccessSurface) => observeAccess(services.access, services.metrics, surface);
  const restAccess = accessFor("rest");
  // The key read and authorize, which sit in front of every request a platform serves, are answered
  // before Fastify when they succeed; what they hand on, Fastify's routes take over without deciding again.
  const handover = decisionHandover();
  const replay = bodyReplay();
  const keyReadBodies = keyBodies();
  const authorizeAccess = accessFor("authorize");
  registerFrontRoutes(
    app,
    server,
    [
      fastKeyRead({
        access: restAccess,
        keys: services.keys,
        bodies: keyReadBodies,
        handover,
      }),
      fastAuthorize({
        access: authorizeAccess,
        serviceTokens: services.serviceTokens,
        handover,
        replay,
        bodyLimit: MAX_BODY_BYTES,
      }),
    ],
    { freshness, requestId: newRequestId, responseSeries },
  );
  await registerOpenApi(app);
  registerManagementGuard(app, restAccess, handover);
  await app.register(healthRoutes, services);
  await app.register(apiKeyRoutes, { keys: services.keys, bodies: keyReadBodies });
  await app.register(resourceFamilyRoutes, services);
  await app.register(usageRoutes, { usage: services.usage });
  await app.register(auditRoutes, { audit: services.audit });
  await app.register(authorizeRoutes, { ...services, access: authorizeAccess, handover, replay });
  await app.register(forwardAuthRoutes, {
    ...services,
    access: accessFor("forward_auth"),
    routes: routeTable,
  });
  await app.register(mcpRoutes, {
    access: accessFor("mcp"),
    tools: mcpTools(services),
    allowedHosts: allowedHostnames(config.host, config.mcpAllowedHosts),
    maxBodyBytes: MAX_BODY_BYTES,
  });
  return { app, services, routeTable };
}
