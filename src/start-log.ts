import type { Config } from "./config.js";
import type { RouteTable } from "./domain/route-table.js";
import { ISSUER_WARNING } from "./oauth/issuer.js";
import { describeTopology } from "./redis/redis-url.js";
import { describeDatabase } from "./store/database-location.js";

/** The limiter as the start line names it: where it counts, and whether it can count there now. */
function describeLimiter(config: Config, healthy: boolean): string {
  if (config.redisTopology === undefined) return "memory (this node only)";
  const ack = config.redisReplicasAck ? ", replica acknowledgement on" : "";
  const redis = `${describeTopology(config.redisTopology)}${ack}`;
  if (healthy) return redis;
  return config.limiterOutage === "refuse"
    ? `${redis} unreachable: refusing rate-limited requests (503) until it answers`
    : `${redis} unreachable: counting on this node alone until it answers`;
}

/**
 * What a node runs with, in its first log line: the version, the database, the limiter (and whether
 * Redis answered), the route table and the addresses to open. An operator who started it from the
 * wrong folder, or against the wrong database, sees it here; no password is ever part of it.
 */
export function startSummary(
  config: Config,
  routeTable: RouteTable,
  version: string,
  baseUrl: string,
  state: { limiterHealthy: boolean },
): Record<string, unknown> {
  return {
    version,
    database: describeDatabase(config.databaseUrl),
    limiter: describeLimiter(config, state.limiterHealthy),
    ...(config.redisTopology ? { redis_topology: config.redisTopology.kind } : {}),
    route_table: config.routesFile
      ? { file: config.routesFile, routes: routeTable.routes.length }
      : { file: null, routes: 0 },
    urls: {
      ...(config.console ? { console: `${baseUrl}/console` } : {}),
      api: `${baseUrl}/v1`,
      docs: `${baseUrl}/docs`,
      mcp: `${baseUrl}/mcp`,
    },
  };
}

/** A documented feature that this configuration leaves out, and the setting that brings it. */
export interface StartAdvice {
  setting: string;
  message: string;
}

/**
 * Said once, at start, after the start line: what a documented feature needs and this node lacks.
 * (Settings that are required stop the start instead, naming themselves.)
 */
export function startAdvice(config: Config): StartAdvice[] {
  const advice: StartAdvice[] = [];
  if (!config.databaseUrl.startsWith("sqlite:") && config.redisUrl === undefined) {
    advice.push({
      setting: "LATCHKEY_REDIS_URL",
      message:
        "PostgreSQL without LATCHKEY_REDIS_URL: this node counts rate limits alone, so with several nodes an " +
        "organization gets one allowance per node. Set LATCHKEY_REDIS_URL (the same on every node) for " +
        "limits shared by all of them (docs/several-nodes.md).",
    });
  }
  if (config.console && config.publicUrl === undefined) {
    advice.push({ setting: "LATCHKEY_PUBLIC_URL", message: ISSUER_WARNING });
  }
  return advice;
}
