import type { FastifyInstance } from "fastify";
import type { LatchkeyMetrics } from "../metrics/metrics.js";

/** The route label of a request that matched no route: one value, whatever URL was asked for. */
const UNMATCHED = "unmatched";

/**
 * Counts and times every response by its route pattern (`/v1/api-keys/:id`, never the URL with the id,
 * which would give one series per key), and serves the registry at `GET /metrics` in Prometheus' text
 * format. Like `/healthz` it needs no credentials: the labels name routes, groups and error codes, never
 * an organization or a key (docs/metrics.md says how to keep the page private anyway).
 */
export function registerMetrics(app: FastifyInstance, metrics: LatchkeyMetrics): void {
  app.addHook("onResponse", (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? UNMATCHED,
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    reply.header("Content-Type", metrics.registry.contentType);
    reply.header("Cache-Control", "no-store");
    return metrics.registry.metrics();
  });
}
