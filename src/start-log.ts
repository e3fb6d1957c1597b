import type { Config } from "./config.js";
import type { RouteTable } from "./domain/route-table.js";
import { describeDatabase } from "./store/database-location.js";

/** Where a URL's user name and password would be: never written to a log. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}${parsed.port ? `:${parsed.port}` : ""}`;
  } catch {
    return "(unparsable URL)";
  }
}

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
      config.redisUrl === undefined
        ? "memory (this node only)"
        : `Redis ${withoutCredentials(config.redisUrl)}`,
    route_table: config.routesFile
      ? { file: config.routesFile, routes: routeTable.routes.length }
      : { file: null, routes: 0 },
    urls: { api: `${baseUrl}/v1`, docs: `${baseUrl}/docs`, mcp: `${baseUrl}/mcp` },
  };
}
