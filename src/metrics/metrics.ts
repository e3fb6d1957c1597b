import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { RedisTopologyHealth } from "../redis/topology-health.js";
import { registerRedisTopologyGauges } from "./redis-topology-metrics.js";

/** What the gauges read at scrape time: the limiter in use and the database connections. */
export interface MetricSources {
  /** Whether LATCHKEY_REDIS_URL is set (the limiter's intended backend is Redis). */
  redisConfigured: boolean;
  /** Whether the limiter runs on its intended backend (false while Redis is replaced by memory). */
  limiterHealthy: () => boolean;
  /** `sqlite` or `postgres`. */
  databaseDialect: string;
  /** PostgreSQL pool counts; undefined for SQLite, which has one connection and no pool. */
  databasePool: (() => { total: number; idle: number; waiting: number }) | undefined;
  /** Redis' topology and its problems (src/redis/topology-health.ts); absent without Redis. */
  redisHealth?: () => RedisTopologyHealth;
}

/** Every latchkey metric, in one registry per app (tests build many apps in one process). */
export interface LatchkeyMetrics {
  /** The registry `/metrics` renders. */
  registry: Registry;
  /** HTTP requests by method, route pattern and status. */
  httpRequests: Counter<"method" | "route" | "status">;
  /** HTTP request duration in seconds, by the same labels. */
  httpDuration: Histogram<"method" | "route" | "status">;
  /** Management rate-limit decisions by operation group and outcome (`allowed`, `limited`). */
  rateLimitDecisions: Counter<"group" | "outcome">;
  /** Access decisions by surface (`rest`, `authorize`, `forward_auth`, ...) and outcome. */
  accessDecisions: Counter<"surface" | "outcome">;
  /** Image credits consumed by allowed decisions. */
  creditsConsumed: Counter;
  /** Reads of the PostgreSQL + Redis record cache, by record and outcome (`hit`, `miss`, `dropped`). */
  recordCacheReads: Counter<"record" | "outcome">;
  /** Keys whose secret a secret scanner reported public, by what was done (`disabled`, `flagged`). */
  leakedKeys: Counter<"action">;
  /** Keys whose expiry was recorded (once per key, by the node that recorded it). */
  keysExpired: Counter;
  /** Console sign-in attempts by outcome (`signed_in`, `refused`, `throttled`). */
  consoleSignIns: Counter<"outcome">;
  /** MCP connections revoked, by reason (src/domain/connection-revocations.ts). */
  oauthConnectionsRevoked: Counter<"reason">;
  /** Webhook attempts by outcome: `delivered`, `retrying` (failed, tried again later), `failed` (for good). */
  webhookDeliveries: Counter<"outcome">;
  /** Webhook deliveries waiting to be sent (the outbox's depth), as this node last counted them. */
  webhookQueueDepth: Gauge;
  /** Time of each webhook attempt, from the request's start to the receiver's answer (or the cut). */
  webhookDeliverySeconds: Histogram;
}

// Latchkey answers most requests in about a millisecond: buckets start well below the default 5 ms.
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Builds the registry. Labels never carry an organization, key or raw URL: their number stays bounded
 * (routes, groups and error codes are closed lists) and the page reveals nothing about customers.
 */
export function createMetrics(sources: MetricSources): LatchkeyMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  new Gauge({
    name: "latchkey_rate_limiter_backend",
    help: "1 for the backend the rate limiter counts on now (redis, or memory), 0 for the other.",
    labelNames: ["backend"],
    registers,
    collect() {
      const onRedis = sources.redisConfigured && sources.limiterHealthy();
      this.set({ backend: "redis" }, onRedis ? 1 : 0);
      this.set({ backend: "memory" }, onRedis ? 0 : 1);
    },
  });
  new Gauge({
    name: "latchkey_rate_limiter_degraded",
    help: "1 while Redis is configured but unreachable and this node counts on its own memory.",
    registers,
    collect() {
      this.set(sources.redisConfigured && !sources.limiterHealthy() ? 1 : 0);
    },
  });
  new Gauge({
    name: "latchkey_database_info",
    help: "Always 1; the dialect label names the database (sqlite or postgres).",
    labelNames: ["dialect"],
    registers,
    collect() {
      this.set({ dialect: sources.databaseDialect }, 1);
    },
  });
  if (sources.redisHealth) registerRedisTopologyGauges(registers, sources.redisHealth);
  const pool = sources.databasePool;
  if (pool) {
    new Gauge({
      name: "latchkey_database_pool_connections",
      help: "PostgreSQL pool connections: total (open), idle, and waiting (queries queued for one).",
      labelNames: ["state"],
      registers,
      collect() {
        const counts = pool();
        this.set({ state: "total" }, counts.total);
        this.set({ state: "idle" }, counts.idle);
        this.set({ state: "waiting" }, counts.waiting);
      },
    });
  }

  return {
    registry,
    httpRequests: new Counter({
      name: "latchkey_http_requests_total",
      help: "HTTP requests answered, by method, route pattern (never the raw URL) and status.",
      labelNames: ["method", "route", "status"],
      registers,
    }),
    httpDuration: new Histogram({
      name: "latchkey_http_request_duration_seconds",
      help: "Time from receiving a request to sending its response, by method, route pattern and status.",
      labelNames: ["method", "route", "status"],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    rateLimitDecisions: new Counter({
      name: "latchkey_rate_limit_decisions_total",
      help: "Management rate-limit decisions by operation group and outcome (allowed, limited).",
      labelNames: ["group", "outcome"],
      registers,
    }),
    accessDecisions: new Counter({
      name: "latchkey_access_decisions_total",
      help: "Access decisions by surface (rest, authorize, forward_auth) and outcome (allowed or the error code).",
      labelNames: ["surface", "outcome"],
      registers,
    }),
    creditsConsumed: new Counter({
      name: "latchkey_credits_consumed_total",
      help: "Image credits consumed by allowed requests.",
      registers,
    }),
    recordCacheReads: new Counter({
      name: "latchkey_record_cache_reads_total",
      help: "PostgreSQL + Redis record cache reads, by record (caller_key, key_by_id, service_token) and outcome (hit, miss, dropped).",
      labelNames: ["record", "outcome"],
      registers,
    }),
    leakedKeys: new Counter({
      name: "latchkey_leaked_keys_total",
      help: "Keys whose secret a secret scanner reported public, by what was done (disabled, flagged).",
      labelNames: ["action"],
      registers,
    }),
    keysExpired: new Counter({
      name: "latchkey_keys_expired_total",
      help: "Keys that reached their expiry, counted once per key (at its first refused use or by the sweep).",
      registers,
    }),
    consoleSignIns: new Counter({
      name: "latchkey_console_sign_ins_total",
      help: "Console sign-in attempts by outcome (signed_in, refused, throttled).",
      labelNames: ["outcome"],
      registers,
    }),
    oauthConnectionsRevoked: new Counter({
      name: "latchkey_oauth_connections_revoked_total",
      help: "MCP connections revoked, by reason (member_removed, role_changed, user_removed, password_changed, password_reset, two_factor_reset, refresh_token_reused, code_reused, revoked_by_user).",
      labelNames: ["reason"],
      registers,
    }),
    webhookDeliveries: new Counter({
      name: "latchkey_webhook_deliveries_total",
      help: "Webhook attempts by outcome: delivered, retrying (failed, tried again later), failed (for good).",
      labelNames: ["outcome"],
      registers,
    }),
    webhookQueueDepth: new Gauge({
      name: "latchkey_webhook_queue_depth",
      help: "Webhook deliveries waiting to be sent, as this node last counted them.",
      registers,
    }),
    webhookDeliverySeconds: new Histogram({
      name: "latchkey_webhook_delivery_seconds",
      help: "Time of each webhook attempt, from the request's start to the receiver's answer or the cut.",
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers,
    }),
  };
}
