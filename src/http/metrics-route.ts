import type { FastifyInstance } from "fastify";
import type { LatchkeyMetrics } from "../metrics/metrics.js";
import { UNMATCHED_ROUTE } from "./access-log.js";
import { NO_STORE } from "./no-store.js";

/**
 * Counts and times every response by its route pattern (`/v1/api-keys/:id`, never the URL with the id,
 * which would give one series per key), and serves the registry at `GET /metrics` in Prometheus' text
 * format. Like `/healthz` it needs no credentials: the labels name routes, groups and error codes, never
 * an organization or a key (docs/metrics.md says how to keep the page private anyway).
 */
export function registerMetrics(app: FastifyInstance, metrics: LatchkeyMetrics): void {
  // One pair of prom-client series per label set, looked up by one string. The set is bounded (methods
  // x route patterns x statuses).
  const series = new Map<string, (seconds: number) => void>();
  const seriesFor = (method: string, route: string, status: number) => {
    const key = `${method} ${route} ${status}`;
    let count = series.get(key);
    if (!count) {
      const labels = { method, route, status: String(status) };
      const requests = metrics.httpRequests.labels(labels);
      const duration = metrics.httpDuration.labels(labels);
      count = (seconds) => {
        requests.inc();
        duration.observe(seconds);
      };
      series.set(key, count);
    }
    return count;
  };

  app.addHook("onResponse", (request, reply, done) => {
    seriesFor(
      request.method,
      request.routeOptions.url ?? UNMATCHED_ROUTE,
      reply.statusCode,
    )(reply.elapsedTime / 1000);
    done();
  });

  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    reply.header("Content-Type", metrics.registry.contentType);
    reply.header("Cache-Control", NO_STORE);
    return metrics.registry.metrics();
  });
}
