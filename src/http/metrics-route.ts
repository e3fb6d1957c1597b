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
  // One child per label set, kept: prom-client would otherwise sort and hash the labels on every
  // request. The set is bounded (methods x route patterns x statuses).
  const children = new Map<string, { count: () => void; time: (seconds: number) => void }>();
  const childFor = (method: string, route: string, status: number) => {
    const key = `${method} ${route} ${status}`;
    let child = children.get(key);
    if (!child) {
      const labels = { method, route, status: String(status) };
      const counter = metrics.httpRequests.labels(labels);
      const histogram = metrics.httpDuration.labels(labels);
      child = { count: () => counter.inc(), time: (seconds) => histogram.observe(seconds) };
      children.set(key, child);
    }
    return child;
  };

  app.addHook("onResponse", (request, reply, done) => {
    const child = childFor(request.method, request.routeOptions.url ?? UNMATCHED, reply.statusCode);
    child.count();
    child.time(reply.elapsedTime / 1000);
    done();
  });

  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    reply.header("Content-Type", metrics.registry.contentType);
    reply.header("Cache-Control", "no-store");
    return metrics.registry.metrics();
  });
}
