import { randomUUID } from "node:crypto";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import type { DestinationStream } from "pino";
import type { Config } from "./config.js";
import { type Clock, systemClock } from "./domain/clock.js";
import { createSecretHasher, type SecretHasher } from "./domain/credentials.js";
import { secretHashingOf } from "./domain/secret-hashing.js";
import { EMPTY_ROUTE_TABLE, parseRouteTable, type RouteTable } from "./domain/route-table.js";
import { parseScanningKeys } from "./domain/github-signature.js";
import { blockListOf } from "./domain/networks.js";
import { registerAccessLog, registerRequestReceivedLog } from "./http/access-log.js";
import { registerErrorHandling } from "./http/error-handler.js";
import { registerJsonBodyParser } from "./http/json-body-parser.js";
import { endJsonLine } from "./http/json-line.js";
import { loggerOptions } from "./http/logger-options.js";
import { registerManagementGuard } from "./http/management-guard.js";
import { MAX_BODY_BYTES } from "./http/body-errors.js";
import { serverSettings } from "./http/server-settings.js";
import { registerShuttingDown } from "./http/shutting-down.js";
import { registerHostRequired } from "./http/host-required.js";
import { registerPublicOrigin } from "./http/public-origin.js";
import { registerMetrics } from "./http/metrics-route.js";
import { registerOpenApi } from "./http/openapi.js";
import { apiKeyRoutes } from "./http/routes/api-keys.js";
import { auditRoutes } from "./http/routes/audit.js";
import { authorizeRoutes } from "./http/routes/authorize.js";
import { forwardAuthRoutes } from "./http/routes/forward-auth.js";
import { rootRoutes } from "./http/routes/root.js";
import { healthRoutes } from "./http/routes/health.js";
import { resourceFamilyRoutes } from "./http/routes/resource-families.js";
import { secretScanningRoutes } from "./http/routes/secret-scanning.js";
import { usageRoutes } from "./http/routes/usage.js";
import { adminOrganizationRoutes } from "./http/routes/admin-organizations.js";
import { adminOrganizationDetailRoutes } from "./http/routes/admin-organization-details.js";
import { adminCreditGrantRoutes } from "./http/routes/admin-credit-grants.js";
import { adminLimitRoutes } from "./http/routes/admin-limits.js";
import { adminServiceTokenRoutes } from "./http/routes/admin-service-tokens.js";
import { createLimitOverrides, type LimitOverrides } from "./services/limit-overrides.js";
import { recordServerHashing } from "./services/secret-hashing.js";
import { createCreditGrants, type CreditGrants } from "./services/credit-grants.js";
import { serializerCompiler } from "./http/serializer-compiler.js";
import { validatorCompiler } from "./http/validator-compiler.js";
import { keepCoherent } from "./cache/coherence.js";
import type { Freshness } from "./cache/freshness.js";
import { allowedHostnames } from "./mcp/allowed-hosts.js";
import { mcpRoutes } from "./mcp/route.js";
import { consoleRoutes } from "./console/plugin.js";
import { createConsoleSessions } from "./services/console-sessions.js";
import { createMcpOauth, type McpOauth } from "./services/mcp-oauth.js";
import { registerOauthIssuer } from "./oauth/issuer.js";
import { oauthRoutes } from "./oauth/routes.js";
import { mcpTools } from "./mcp/tools.js";
import { createRateLimiter } from "./ratelimit/create-rate-limiter.js";
import { openSharedRedis } from "./redis/shared-redis.js";
import type { RedisTopologyHealth } from "./redis/topology-health.js";
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
import { type ConsoleUserService, createConsoleUserService } from "./services/console-users.js";
import type { ConsoleStore } from "./store/console-store.js";
import { type AuditLog, createAuditLog } from "./services/audit-log.js";
import { createExpiryRecorder, type ExpiryRecorder } from "./services/expiry-recorder.js";
import { createKeyService, type KeyService } from "./services/key-service.js";
import { createLastUseRecorder, type LastUseRecorder } from "./services/last-use.js";
import { createLeakResponse, type LeakResponse } from "./services/leak-response.js";
import { createOrganizationLimitsView } from "./services/organization-limits.js";
import { createPlanService, type PlanService } from "./services/plans.js";
import { createProvisioning, type Provisioning } from "./services/provisioning.js";
import { createGroupCatalog, type GroupCatalog } from "./services/rate-limit-groups.js";
import { loadGroupsFile } from "./services/group-file.js";
import { loadSettingFile } from "./setting-file.js";
import { isRateLimitGroup } from "./domain/rate-limit-groups.js";
import type { GroupLimit } from "./domain/rate-limit-policies.js";
import { createRefusedCredentials } from "./services/refused-credentials.js";
import { createResourceServices, type ResourceServices } from "./services/resource-service.js";
import { type AwsExternalIdService, createAwsExternalIdService } from "./services/aws-external-id.js";
import { createServiceTokenService, type ServiceTokenService } from "./services/service-tokens.js";
import { createIdempotentCreates, type IdempotentCreates } from "./services/idempotency.js";
import { createResponseSealer } from "./services/response-sealer.js";
import { createSecretHandoffs, type SecretHandoffs } from "./services/secret-handoffs.js";
import { serverKeySource } from "./services/server-key.js";
import { createUsageService, type UsageService } from "./services/usage.js";
import { createDecisionTally, type DecisionTally, talliedAccess } from "./services/decision-tally.js";
import { createUsageExport, type UsageExport } from "./services/usage-export.js";
import { usageExportRoutes } from "./http/routes/usage-export.js";
import { adminUsageExportRoutes } from "./http/routes/admin-usage-export.js";
import { createWebhookAlerts } from "./services/webhook-alerts.js";
import { createWebhookEndpoints, type WebhookEndpoints } from "./services/webhook-endpoints.js";
import { createWebhookDispatcher, type WebhookDispatcher } from "./webhooks/dispatcher.js";
import { webhookEndpointRoutes } from "./http/routes/webhook-endpoints.js";
import { adminWebhookEndpointRoutes } from "./http/routes/admin-webhook-endpoints.js";
import type { KeyStore } from "./store/key-store.js";
import { openStores } from "./store/open-database.js";
import { heldUntilReleased, stderrLog } from "./warning-log.js";

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
  /** Every rate-limit group the deployment knows: management groups and the platform's own. */
  groups: GroupCatalog;
  /** Each organization's limits per group and its overrides (`/v1/admin/.../limits`). */
  limitOverrides: LimitOverrides;
  /** Organizations as the platform manages them through `/v1/admin` (docs/provisioning.md). */
  provisioning: Provisioning;
  /** Top-ups of image credits, consumed after the period's allowance. */
  creditGrants: CreditGrants;
  serviceTokens: ServiceTokenService;
  usage: UsageService;
  /** Counts authorize and forward-auth decisions per organization and hour, written in batches. */
  decisions: DecisionTally;
  /** Usage rows for billing, streamed (`/v1/usage/export`, `/v1/admin/usage/export`). */
  usageExport: UsageExport;
  /** Reads the audit trail (`GET /v1/audit`). */
  audit: AuditLog;
  /** Throttled, non-blocking writes of keys' `last_used_at`. */
  lastUse: LastUseRecorder;
  /** Records each key's expiry once (audit `key.expired` and a metric); `sweep` runs every minute. */
  expiries: ExpiryRecorder;
  /** Proxies, storage destinations and OG configurations, one service per family (REST and MCP). */
  resources: ResourceServices;
  /** The organization's AWS external id for storage destinations. */
  awsExternalIds: AwsExternalIdService;
  /** Creates sent with an `Idempotency-Key`: run once, the first response kept 24 hours. */
  idempotency: IdempotentCreates;
  /** Console users and memberships (`latchkey user ...`, the members page). */
  consoleUsers: ConsoleUserService;
  /** Console users, memberships and sessions as stored (sign-in, sessions). */
  consoleStore: ConsoleStore;
  /** A created or rolled key's secret on its way to the console page that shows it once. */
  secretHandoffs: SecretHandoffs;
  /** MCP over OAuth: registered clients, codes, connections and their tokens. */
  mcpOauth: McpOauth;
  /** What a secret scanner's report of a leaked secret does (LATCHKEY_LEAKED_KEYS). */
  leaks: LeakResponse;
  /** Webhook endpoints of organizations and of the platform (docs/webhooks.md). */
  webhooks: WebhookEndpoints;
  /** Sends the outbox's deliveries; started by buildApp, one loop per node. */
  webhookDispatcher: WebhookDispatcher;
  /** Prometheus metrics; null with LATCHKEY_METRICS=off. */
  metrics: LatchkeyMetrics | null;
  /** What keeps the SQLite record caches exact; absent on PostgreSQL (src/cache/freshness.ts). */
  freshness?: Freshness;
  /** Entries held per record cache. */
  cacheSizes(): Record<string, number>;
  /** Redis' topology and what is wrong with it now; absent without LATCHKEY_REDIS_URL. */
  redisHealth?: () => RedisTopologyHealth;
  /** Stops the background work the services started themselves (the topology monitor). */
  close(): void;
  /** Closes the database every store shares (no store closes it): last, when the app stops. */
  closeDatabase(): Promise<void>;
}

/**
 * The composition root: the one place that picks backends from configuration. `log` receives the
 * limiter's notices (Redis lost, Redis back); buildApp passes the Fastify logger.
 */
export async function createServices(
  config: Config,
  clock: Clock = systemClock,
  log: LimiterLog = stderrLog,
  fileGroups: Readonly<Record<string, GroupLimit>> = loadGroupsFile(config),
): Promise<Services> {
  const shared = await openSharedRedis(config);
  const redis = shared?.connection;
  const redisHealth = shared && (() => shared.monitor.current());
  const stores = await openStores(config.databaseUrl, log);
  // What `keys import` beside the database compares its own environment with (services/secret-hashing.ts).
  await recordServerHashing(stores.secretHashing, secretHashingOf(config.secretPepper), clock).catch(
    async (error: unknown) => {
      shared?.monitor.close();
      redis?.disconnect();
      await stores.close();
      throw error;
    },
  );
  const groups = createGroupCatalog({
    store: stores.groups,
    fileGroups,
    windowSeconds: config.rateWindowSeconds,
    clock,
  });
  let limiter: RateLimiter | undefined;
  const metrics = config.metrics
    ? createMetrics({
        redisConfigured: config.redisUrl !== undefined,
        limiterHealthy: () => limiter?.healthy ?? false,
        databaseDialect: stores.dialect,
        databasePool: stores.poolStats,
        ...(redisHealth ? { redisHealth } : {}),
      })
    : null;
  const coherence = keepCoherent(stores, {
    redis: redis && (async () => redis),
    prefix: config.redisPrefix,
    ...(config.redisReplicasAck ? { replicasAck: { deadlineMs: config.redisDeadlineMs } } : {}),
    cache: config.recordCache,
    usable: () => limiter?.healthy ?? false,
    now: () => clock.now(),
    log,
    ...(metrics ? { onRead: countRecordCacheReads(metrics) } : {}),
  });
  const store = coherence.keys;
  const hasher = createSecretHasher(config.secretPepper);
  shared?.onMasterLost(() => coherence.clear());
  try {
    limiter = await createRateLimiter({
      redis: config.redisTopology,
      clock,
      log,
      ...(shared
        ? {
            connection: shared.connection,
            replicaMissing: (key: string) => shared.monitor.replicaMissing(key),
          }
        : {}),
      onRecover: () => coherence.clear(),
      outagePolicy: config.limiterOutage,
      deadlineMs: config.redisDeadlineMs,
      outageAfterMs: config.redisOutageAfterMs,
      replicasAck: config.redisReplicasAck,
      // A cluster needs a moment more than one server: the seed, the slot map, then every master.
      connectWaitMs: config.redisTopology?.kind === "single" ? 1000 : 5000,
    });
  } catch (error) {
    shared?.monitor.close();
    redis?.disconnect();
    await stores.close();
    throw error;
  }
  const sharedLimiter = limiter;
  const rateLimit = observeRateLimit(
    createManagementRateLimit({
      limiter,
      loadLimits: (orgId) => store.getLimits(orgId),
      groups,
      windowSeconds: config.rateWindowSeconds,
      // Where the store's reads are exactly cached, overrides need no second, time-based cache: a
      // change applies on the next request. Elsewhere (PostgreSQL) they are read at most once a second.
      ...(stores.freshness ? { overridesTtlMs: 0 } : {}),
      namespace: config.redisPrefix,
      ...(coherence.versions ? { versions: coherence.versions } : {}),
      now: () => clock.now(),
    }),
    metrics,
  );
  const plans = createPlanService(coherence.plans, { imageCredits: config.defaultImageCredits }, clock);
  const alerts = createWebhookAlerts({
    enqueue: (event) => stores.webhooks.enqueue(event),
    now: () => clock.now(),
    log,
  });
  const credits = createCreditLedger(coherence.plans, clock);
  const lastUse = createLastUseRecorder({ store, clock, log });
  const decisions = createDecisionTally({ store: stores.usageExport, clock, log });
  const expiries = createExpiryRecorder({
    store,
    clock,
    log,
    ...(metrics ? { onRecorded: () => metrics.keysExpired.inc() } : {}),
  });
  const serverKey = serverKeySource(config);
  if (serverKey.type === "none") log.warn({ setting: "LATCHKEY_SERVER_KEY_FILE" }, serverKey.reason);
  const idempotency = createIdempotentCreates({
    store: stores.idempotency,
    clock,
    sealer: serverKey.type === "material" ? createResponseSealer(serverKey.material) : serverKey.reason,
    log,
  });
  const limitOverrides = createLimitOverrides({
    keys: store,
    groups,
    clock,
    windowSeconds: config.rateWindowSeconds,
  });
  return {
    store,
    limiter: sharedLimiter,
    rateLimit,
    hasher,
    clock,
    keys: createKeyService({
      store,
      hasher,
      clock,
      groupLimits: async (orgId) => (await limitOverrides.effective(orgId)).groups,
    }),
    access: createAccessControl({
      keys: store,
      hasher,
      rateLimit,
      plans,
      credits,
      lastUse,
      ...(coherence.callers ? { callers: coherence.callers } : {}),
      refusals: createRefusedCredentials({ log, now: () => clock.now() }),
      trustedProxies: config.trustedProxies.length > 0 ? blockListOf(config.trustedProxies) : undefined,
      now: () => clock.now(),
      onExpired: (key) => expiries.note(key),
      onRateLimited: (orgId, refusal) => alerts.rateLimited(orgId, refusal),
    }),
    plans,
    groups,
    limitOverrides,
    provisioning: createProvisioning({
      organizations: coherence.organizations,
      keys: store,
      plans,
      hasher,
      clock,
      knownGroups: async () => new Set(Object.keys(await groups.all())),
    }),
    creditGrants: createCreditGrants({ store: stores.creditGrants, clock }),
    serviceTokens: createServiceTokenService({
      store: coherence.serviceTokens,
      hasher,
      clock,
      cache: coherence.tokens,
    }),
    usage: createUsageService({ store: stores.plans, plans, clock }),
    decisions,
    usageExport: createUsageExport({ store: stores.usageExport, flushDecisions: () => decisions.flush() }),
    audit: createAuditLog(stores.audit),
    lastUse,
    expiries,
    resources: createResourceServices({ store: stores.resources, clock }),
    awsExternalIds: createAwsExternalIdService(stores.resources),
    idempotency,
    consoleUsers: createConsoleUserService({
      store: stores.console,
      keys: store,
      clock,
      passwordCost: config.passwordCost,
      ...(metrics
        ? { onConnectionsRevoked: (reason, count) => metrics.oauthConnectionsRevoked.inc({ reason }, count) }
        : {}),
    }),
    consoleStore: stores.console,
    secretHandoffs: createSecretHandoffs(stores.secretHandoffs, clock),
    mcpOauth: createMcpOauth({
      store: stores.oauth,
      hasher,
      clock,
      limiter: sharedLimiter,
      namespace: config.redisPrefix,
      maxDays: config.oauthMaxDays,
      ...(metrics ? { onRevoked: (reason) => metrics.oauthConnectionsRevoked.inc({ reason }) } : {}),
    }),
    leaks: createLeakResponse({
      store,
      reports: stores.leakReports,
      hasher,
      clock,
      action: config.leakedKeys,
      ...(metrics ? { onLeak: (action) => metrics.leakedKeys.inc({ action }) } : {}),
    }),
    webhooks: createWebhookEndpoints({
      store: stores.webhooks,
      clock,
      allowPrivate: config.webhooksAllowPrivate,
    }),
    webhookDispatcher: createWebhookDispatcher({
      store: stores.webhooks,
      clock,
      scale: { divisor: config.webhooksTimeDivisor },
      allowPrivate: config.webhooksAllowPrivate,
      pollMs: config.webhooksPollMs,
      metrics,
      log,
    }),
    metrics,
    ...(stores.freshness ? { freshness: stores.freshness } : {}),
    ...(redisHealth ? { redisHealth } : {}),
    cacheSizes: () => coherence.cacheSizes(),
    close: () => shared?.monitor.close(),
    closeDatabase: () => stores.close(),
  };
}

export interface BuildAppOptions {
  config: Config;
  /** Fake clocks in tests; the system clock otherwise. */
  clock?: Clock;
  /** Where JSON logs go (stdout by default); tests capture them to prove no secret is logged. */
  logStream?: DestinationStream;
  /**
   * Keeps the warnings of the start (Redis unreachable, a setting a feature needs) until
   * `releaseStartWarnings` is called: the server writes its start line first (src/serve.ts).
   */
  holdStartWarnings?: boolean;
}

export interface LatchkeyApp {
  app: FastifyInstance;
  services: Services;
  /** The forward-auth route table (LATCHKEY_ROUTES), for the start log. */
  routeTable: RouteTable;
  /** Writes the warnings held since the start (with `holdStartWarnings`); does nothing otherwise. */
  releaseStartWarnings: () => void;
}

/** The log levels that write `info` lines, the access log's. */
const LEVELS_WITH_ACCESS_LOG = new Set(["info", "debug", "trace"]);

/** How often each node records the expiries no request has run into yet. */
const EXPIRY_SWEEP_INTERVAL_MS = 60_000;

/** Every request's id (`X-Request-Id`, `request_id` in the logs). */
const newRequestId = () => randomUUID();

export async function buildApp({
  config,
  clock,
  logStream,
  holdStartWarnings = false,
}: BuildAppOptions): Promise<LatchkeyApp> {
  const fileGroups = loadGroupsFile(config);
  const routeTable = config.routesFile
    ? loadSettingFile("LATCHKEY_ROUTES", config.routesFile, (text, source) =>
        parseRouteTable(text, source, (name) => isRateLimitGroup(name) || name in fileGroups),
      )
    : EMPTY_ROUTE_TABLE;
  const scanningKeys =
    config.secretScanningKeysFile &&
    loadSettingFile("LATCHKEY_SECRET_SCANNING_KEYS", config.secretScanningKeysFile, parseScanningKeys);
  const logger = loggerOptions(config, logStream);
  const app = Fastify({
    logger: logger.options,
    genReqId: newRequestId,
    // Fastify's two lines per request are replaced by the access log's one (access-log.ts).
    logController: new LogController({ requestIdLogLabel: "request_id", disableRequestLogging: true }),
    ...serverSettings(config),
    exposeHeadRoutes: true,
  });
  const startLog = holdStartWarnings ? heldUntilReleased(app.log) : undefined;
  const services = await createServices(config, clock, startLog ?? app.log, fileGroups).catch(
    (error: unknown) => {
      startLog?.release();
      throw error;
    },
  );
  const freshness = services.freshness;
  if (freshness) {
    // First of all hooks: the caches ask the database again after every new request started, once
    // for all the requests that arrived in the same turn of the event loop (sqlite-freshness.ts).
    app.addHook("onRequest", (_request, _reply, done) => {
      freshness.beginRequest(done);
    });
  }
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerJsonBodyParser(app);
  // Synchronous onSend hooks: every response passes through them, and an async hook costs a promise.
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("X-Request-Id", request.id);
    done(null, endJsonLine(reply, payload));
  });
  // Records expiries no request has run into; the conditional write makes several nodes harmless.
  // The same minute deletes OAuth clients nobody consented to within a day, and old codes.
  const expirySweep = setInterval(() => {
    services.expiries.sweep().catch((error: unknown) => {
      app.log.warn({ error: error instanceof Error ? error.message : String(error) }, "expiry sweep failed");
    });
    services.mcpOauth.sweep().catch((error: unknown) => {
      app.log.warn({ error: error instanceof Error ? error.message : String(error) }, "OAuth sweep failed");
    });
  }, EXPIRY_SWEEP_INTERVAL_MS);
  expirySweep.unref();
  services.webhookDispatcher.start();
  app.addHook("onClose", async () => {
    clearInterval(expirySweep);
    await services.webhookDispatcher.stop();
    services.idempotency.close();
    services.close();
    await services.limiter.close();
    await services.lastUse.flush();
    await services.decisions.close().catch((error: unknown) => {
      app.log.warn(
        { error: error instanceof Error ? error.message : String(error) },
        "could not record the last decision counts",
      );
    });
    await services.expiries.flush();
    await services.closeDatabase();
    logger.flush();
  });
  // At `warn` and above its lines would be dropped: no hook at all then.
  if (config.accessLog && LEVELS_WITH_ACCESS_LOG.has(config.logLevel)) registerAccessLog(app);
  if (config.logLevel === "debug" || config.logLevel === "trace") registerRequestReceivedLog(app);

  registerErrorHandling(app);
  registerShuttingDown(app);
  registerHostRequired(app);
  registerPublicOrigin(app, config.publicUrl);
  registerOauthIssuer(app, config);
  // Before every route, so that every response is counted; each adapter's decisions get their label.
  if (services.metrics) registerMetrics(app, services.metrics);
  const accessFor = (surface: AccessSurface) => observeAccess(services.access, services.metrics, surface);
  const restAccess = accessFor("rest");
  await registerOpenApi(app);
  registerManagementGuard(app, restAccess);
  await app.register(healthRoutes, services);
  await app.register(rootRoutes, { console: config.console });
  await app.register(apiKeyRoutes, {
    keys: services.keys,
    idempotency: services.idempotency,
    clock: services.clock,
  });
  await app.register(resourceFamilyRoutes, services);
  await app.register(usageRoutes, { usage: services.usage });
  await app.register(usageExportRoutes, { usageExport: services.usageExport });
  await app.register(auditRoutes, { audit: services.audit });
  await app.register(adminOrganizationRoutes, services);
  await app.register(adminOrganizationDetailRoutes, services);
  await app.register(adminCreditGrantRoutes, services);
  await app.register(adminLimitRoutes, services);
  await app.register(adminServiceTokenRoutes, services);
  await app.register(adminUsageExportRoutes, services);
  await app.register(webhookEndpointRoutes, {
    webhooks: services.webhooks,
    idempotency: services.idempotency,
  });
  await app.register(adminWebhookEndpointRoutes, {
    webhooks: services.webhooks,
    serviceTokens: services.serviceTokens,
    idempotency: services.idempotency,
  });
  // The platform's decisions are counted for the usage export; management requests are not.
  await app.register(authorizeRoutes, {
    ...services,
    access: talliedAccess(accessFor("authorize"), services.decisions),
  });
  await app.register(forwardAuthRoutes, {
    ...services,
    access: talliedAccess(accessFor("forward_auth"), services.decisions),
    routes: routeTable,
    forwardedHeaders: config.forwardedHeaders,
  });
  if (config.console) {
    const sessions = createConsoleSessions({
      store: services.consoleStore,
      limiter: services.limiter,
      clock: services.clock,
      namespace: config.redisPrefix,
      passwordCost: config.passwordCost,
    });
    await app.register(consoleRoutes, {
      prefix: "/console",
      sessions,
      users: services.consoleUsers,
      keys: services.keys,
      secretHandoffs: services.secretHandoffs,
      usage: services.usage,
      limits: createOrganizationLimitsView({ store: services.store, rateLimit: services.rateLimit }),
      audit: services.audit,
      webhooks: services.webhooks,
      oauth: services.mcpOauth,
      metrics: services.metrics,
      clock: services.clock,
    });
    await app.register(oauthRoutes, { oauth: services.mcpOauth });
  }
  if (scanningKeys) await app.register(secretScanningRoutes, { keys: scanningKeys, leaks: services.leaks });
  await app.register(mcpRoutes, {
    access: accessFor("mcp"),
    tools: mcpTools({
      resources: services.resources,
      awsExternalIds: services.awsExternalIds,
      usage: services.usage,
      plans: services.plans,
    }),
    allowedHosts: allowedHostnames(config.host, config.mcpAllowedHosts),
    maxBodyBytes: MAX_BODY_BYTES,
    // Sign-in and consent are console pages: without the console, /mcp takes Basic credentials only.
    ...(config.console ? { oauth: services.mcpOauth } : {}),
  });
  return { app, services, routeTable, releaseStartWarnings: () => startLog?.release() };
}
