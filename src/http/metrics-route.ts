import type { FastifyInstance } from "fastify";
import type { LatchkeyMetrics } from "../metrics/metrics.js";
import type { CounterTally, HistogramTally } from "../metrics/tallies.js";

/**
 * The counter of one (method, route, status) series, for responses answered where the onResponse hook
 * does not see them (src/http/fast-key-read.ts): count one, with the seconds it took.
 */
export type ResponseSeries = (method: string, route: string, status: number) => (seconds: number) => void;

/** The route label of a request that matched no route: one value, whatever URL was asked for. */
const UNMATCHED = "unmatched";

/**
 * Counts and times every response by its route pattern (`/v1/api-keys/:id`, never the URL with the id,
 * which would give one series per key), and serves the registry at `GET /metrics` in Prometheus' text
 * format. Like `/healthz` it needs no credentials: the labels name routes, groups and error codes, never
 * an organization or a key (docs/metrics.md says how to keep the page private anyway).
 */
export function registerMetrics(app: FastifyInstance, metrics: LatchkeyMetrics): ResponseSeries {
  // One pair of tallies per label set, kept: the request only adds to them (metrics/tallies.ts). The
  // set is bounded (methods x route patterns x statuses).
  const series = new Map<string, { requests: CounterTally; duration: HistogramTally }>();
  const seriesFor = (method: string, route: string, status: number) => {
    const key = `${method} ${route} ${status}`;
    let found = series.get(key);
    if (!found) {
      const labels = { method, route, status: String(status) };
      found = { requests: metrics.httpRequests.tally(labels), duration: metrics.httpDuration.tally(labels) };
      series.set(key, found);
    }
    return found;
  };

  app.addHook("onResponse", (request, reply, done) => {
    const { requests, duration } = seriesFor(
      request.method,
      request.routeOptions.url ?? UNMATCHED,
      reply.statusCode,
    );
    requests.inc();
    duration.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    reply.header("Content-Type", metrics.registry.contentType);
    reply.header("Cache-Control", "no-store");
    return metrics.registry.metrics();
  });
  return (method, route, status) => {
    const { requests, duration } = seriesFor(method, route, status);
    return (seconds) => {
      requests.inc();
      duration.observe(seconds);
    };
  };
}
