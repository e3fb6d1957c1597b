import type { Config } from "./config.js";
import type { RouteTable } from "./domain/route-table.js";
import { describeTopology } from "./redis/redis-url.js";
import { describeDatabase } from "./store/database-location.js";

/**
 * What a node runs with, in its first log line: the version, the database, the limiter, the route
 * table and the addresses to open. An operator who started it from the wrong folder, or against the
 * wrong database, sees it here; no password is ever part of it.
 */
export function startSummary(
  config: Config,
  routeTable: RouteTable,
  version: string,
  baseUrl: string,
): Record<string, unknown> {
  return {
    version,
    database: describeDatabase(config.databaseUrl),
    limiter:
      config.redisTopology === undefined
        ? "memory (this node only)"
        : `${describeTopology(config.redisTopology)}${config.redisReplicasAck ? ", replica acknowledgement on" : ""}`,
    ...(config.redisTopology ? { redis_topology: config.redisTopology.kind } : {}),
    route_table: config.routesFile
      ? { file: config.routesFile, routes: routeTable.routes.length }
      : { file: null, routes: 0 },
    urls: { api: `${baseUrl}/v1`, docs: `${baseUrl}/docs`, mcp: `${baseUrl}/mcp` },
  };
}
