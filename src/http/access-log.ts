import type { FastifyInstance } from "fastify";

/** The route of a request that matched none: one value, whatever URL was asked for. */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * The access log: one line per request, written when its response is finished, with what an operator
 * of an auth service looks for (`request_id` from the request's logger, method, route pattern, status,
 * duration, and the organization whose key was decided on, when known). It names the route pattern
 * (`/v1/api-keys/:id`), never the URL with its query string, and no header: a secret never reaches it.
 * Fastify's own two lines per request are off (`disableRequestLogging`, app.ts); this one replaces them.
 */
export function registerAccessLog(app: FastifyInstance): void {
  app.addHook("onResponse", (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? UNMATCHED_ROUTE,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 1000) / 1000,
        organization_id: request.caller?.orgId ?? null,
      },
      "request completed",
    );
    done();
  });
}

/**
 * At `debug` and `trace`, a line when a request's headers have arrived (method and path, never the
 * query string or a header): what a slow or stuck request was, before it has an access-log line.
 */
export function registerRequestReceivedLog(app: FastifyInstance): void {
  app.addHook("onRequest", (request, _reply, done) => {
    request.log.debug({ method: request.method, url: request.url.split("?")[0] }, "request received");
    done();
  });
}
