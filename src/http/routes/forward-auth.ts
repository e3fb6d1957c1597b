import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from "fastify";
import { invalidRequest, LatchkeyError } from "../../domain/errors.js";
import type { ForwardRoute, RouteTable } from "../../domain/route-table.js";
import type { AccessControl } from "../../services/access-decision.js";
import type { ServiceTokenService } from "../../services/service-tokens.js";
import { gatewayOrigin } from "../client-origin.js";
import { decisionHeaders } from "../decision-headers.js";
import { type ForwardedHeaders, originalRequest } from "../forwarded-request.js";
import { sendError } from "../error-handler.js";
import { sendNoStore } from "../no-store.js";
import { serviceTokenGuard, takePremise } from "../service-token-guard.js";

// Gateways differ in the method of their auth subrequest: Caddy and Traefik send GET, nginx and Envoy
// may send the original method. Every method is served the same way.
const METHODS: HTTPMethods[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * nginx's `auth_request` passes only a 401 or 403 of the auth request on to the caller (any other status
 * becomes its own 500), and never the body. A gateway that sends `X-Latchkey-Refusal-Status: 401|403`
 * gets every refusal with that status instead, the real status in `X-Latchkey-Status` and the error
 * body in `X-Latchkey-Error`, so that its configuration can relay them (docs/gateways.md).
 */
const REFUSAL_STATUS = "x-latchkey-refusal-status";
const REFUSAL_STATUSES = new Set(["401", "403"]);

function refusalStatus(request: FastifyRequest): string | undefined {
  const value = request.headers[REFUSAL_STATUS];
  return typeof value === "string" && REFUSAL_STATUSES.has(value) ? value : undefined;
}

/** A JSON text as one header value: only printable ASCII (the rest escaped as JSON \\uXXXX). */
function asHeaderValue(json: string): string {
  return json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `onSend`: in the refusal-status mode, moves a refusal's status and body into headers. */
function relayRefusalInHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: null, payload: unknown) => void,
): void {
  const status = refusalStatus(request);
  if (status !== undefined && reply.statusCode !== 200) {
    reply.header("X-Latchkey-Status", String(reply.statusCode));
    // The body ends with a newline (json-line.ts), which a header value cannot hold.
    if (typeof payload === "string") reply.header("X-Latchkey-Error", asHeaderValue(payload.trimEnd()));
    reply.code(Number(status));
  }
  done(null, payload);
}

/**
 * `/v1/forward-auth`: a gateway's auth subrequest (Caddy `forward_auth`, Traefik `ForwardAuth`, Envoy
 * `ext_authz`, nginx `auth_request`). Allowed: 200, empty body, the decision's headers plus the
 * organization and key for the upstream. Refused: the decision's status, headers and error body, which
 * the gateway passes to the caller.
 */
/** The 404 of forward-auth: no route matches, or there is no table at all (LATCHKEY_ROUTES unset or empty). */
function noRoute(routes: RouteTable, method: string, path: string): LatchkeyError {
  return new LatchkeyError(
    "no_route",
    routes.routes.length === 0
      ? `No route table is configured (LATCHKEY_ROUTES), so forward-auth matches no request, ${method} ${path} included. The operator sets LATCHKEY_ROUTES to a JSON file of routes (docs/gateways.md).`
      : `No route of the table matches ${method} ${path}.`,
  );
}

const named = (routes: RouteTable, route: ForwardRoute) =>
  `route ${routes.routes.indexOf(route) + 1} (${route.method} ${route.path})`;

/**
 * The 400 of a path that matches a route only once letter case or a trailing slash is ignored, or
 * another route than its exact match: an upstream that reads paths that way could run the handler of
 * a route whose permission was never checked.
 */
function ambiguousPath(
  routes: RouteTable,
  method: string,
  path: string,
  loose: ForwardRoute,
  exact: ForwardRoute | undefined,
): LatchkeyError {
  const matches = exact === undefined ? "matches no route as written" : `matches ${named(routes, exact)}`;
  return invalidRequest(
    `The path of ${method} ${path} ${matches}, but ${named(routes, loose)} when letter case or a ` +
      "trailing slash is ignored, as many upstreams read paths: refused rather than guessing which " +
      'handler runs. Make the gateway and the upstream agree, or mark the route "case_insensitive" or ' +
      '"trailing_slash" (docs/gateways.md, "Paths as the upstream reads them").',
  );
}

export async function forwardAuthRoutes(
  app: FastifyInstance,
  options: {
    access: AccessControl;
    serviceTokens: ServiceTokenService;
    routes: RouteTable;
    /** The one header pair the original request is read from (LATCHKEY_FORWARDED_HEADERS). */
    forwardedHeaders: ForwardedHeaders;
  },
): Promise<void> {
  const { access, routes, forwardedHeaders } = options;
  sendNoStore(app);
  // The original request's body, if a gateway forwards it, is not latchkey's to parse: any content
  // type is accepted and the body is drained unread.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, payload, done) => {
    payload.resume();
    payload.on("end", () => done(null, undefined));
    payload.on("error", done);
  });

  app.route({
    method: METHODS,
    url: "/v1/forward-auth",
    onRequest: serviceTokenGuard(app, options.serviceTokens),
    onSend: relayRefusalInHeaders,
    schema: { hide: true },
    handler: async (request, reply) => {
      // First: it also refuses repeated headers, the refusal status among them.
      const { method, path } = originalRequest(request, forwardedHeaders);
      const mode = request.headers[REFUSAL_STATUS];
      if (mode !== undefined && refusalStatus(request) === undefined) {
        throw invalidRequest(`${REFUSAL_STATUS} must be 401 or 403.`);
      }
      const found = routes.lookup(method, path);
      if (found.type === "none") throw noRoute(routes, method, path);
      if (found.type === "ambiguous") throw ambiguousPath(routes, method, path, found.loose, found.exact);
      const { route } = found;
      const decision = await access.decide({
        authorization: request.headers.authorization,
        permission: route.permission,
        group: route.group,
        cost: route.cost,
        credits: route.credits,
        client: gatewayOrigin(request),
        premise: takePremise(request),
      });
      request.caller = decision.caller;
      reply.headers(decisionHeaders(decision));
      if (!decision.allowed) return sendError(reply, decision.error);
      reply.header("X-Latchkey-Organization-Id", decision.caller.orgId);
      reply.header("X-Latchkey-Key-Id", decision.caller.id);
      return reply.code(200).send();
    },
  });
}
