import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { Freshness } from "../cache/freshness.js";
import type { FastifyHandler, FrontedServer, FrontHandler } from "./front-server.js";
import type { ResponseSeries } from "./metrics-route.js";
import { NO_STORE } from "./no-store.js";
import { JSON_CONTENT_TYPE } from "./serialized-json.js";

/** One request taken in front of Fastify, to be answered there (`ok`) or handed to `fastify`. */
export interface FrontExchange {
  request: IncomingMessage;
  response: ServerResponse;
  fastify: FastifyHandler;
  /**
   * Answers 200 with this body, serialized by the route's own response schema, and `headers`; adds
   * what Fastify's hooks add to every such response (`X-Request-Id`, `Cache-Control: no-store`) and
   * counts it in the route's HTTP metrics, as Fastify's `onResponse` hook would.
   */
  ok(body: string, headers?: OutgoingHttpHeaders): void;
}

/**
 * A route answered in front of Fastify when it succeeds (fast-key-read.ts, fast-authorize.ts). `match`
 * gives the function that answers a request of `method`, or undefined when the request is not exactly
 * this route's.
 */
export interface FrontRoute {
  method: "GET" | "POST";
  /** The route as Fastify names it: its HTTP metrics label. */
  route: string;
  match(request: IncomingMessage): ((exchange: FrontExchange) => Promise<void>) | undefined;
}

export interface FrontRoutesOptions {
  /** Where SQLite's caches are exact only once asked after the request started. */
  freshness?: Freshness | undefined;
  /** True while Fastify would log every request (at `info` and below): it must then answer them. */
  logsEveryRequest(): boolean;
  /** Where a failure of a front route itself is reported (every other error is Fastify's to log). */
  log: Pick<FastifyBaseLogger, "error">;
  /** A new request id, made as Fastify's `genReqId` makes them (sent as `X-Request-Id`). */
  requestId(): string;
  /** The HTTP metrics' series (metrics-route.ts), when metrics are on. */
  responseSeries?: ResponseSeries | undefined;
}

export interface FrontRoutes {
  front: FrontHandler;
  /** From now on every request goes to Fastify (which answers 503 while it closes). */
  close(): void;
}

/** A route with what its answers share: the counter of its 200s. */
interface Served {
  route: FrontRoute;
  count: ((seconds: number) => void) | undefined;
}

/**
 * The routes that sit in front of every request a platform serves, answered without Fastify's request
 * lifecycle while no line per request is logged and the app is not closing. Each request first takes the
 * freshness hop Fastify's first `onRequest` hook gives every other request.
 */
export function frontRoutes(routes: FrontRoute[], options: FrontRoutesOptions): FrontRoutes {
  const { freshness, log, requestId } = options;
  const served: Served[] = routes.map((route) => ({
    route,
    count: options.responseSeries?.(route.method, route.route, 200),
  }));
  let closed = false;

  function exchangeOf(
    request: IncomingMessage,
    response: ServerResponse,
    fastify: FastifyHandler,
    count: Served["count"],
  ): FrontExchange {
    const started = performance.now();
    return {
      request,
      response,
      fastify,
      ok(body, headers) {
        const head: OutgoingHttpHeaders = {
          "content-type": JSON_CONTENT_TYPE,
          "content-length": Buffer.byteLength(body),
          "x-request-id": requestId(),
          "cache-control": NO_STORE,
        };
        response.writeHead(200, headers ? Object.assign(head, headers) : head);
        response.end(body);
        count?.((performance.now() - started) / 1000);
      },
    };
  }

  return {
    front(request, response, fastify) {
      if (closed || options.logsEveryRequest()) return false;
      for (const { route, count } of served) {
        if (request.method !== route.method) continue;
        const answer = route.match(request);
        if (!answer) continue;
        const exchange = exchangeOf(request, response, fastify, count);
        const go = () => {
          answer(exchange).catch((error: unknown) => {
            log.error({ err: error }, "request answered in front of Fastify failed");
            response.destroy();
          });
        };
        if (freshness) freshness.beginRequest(go);
        else go();
        return true;
      }
      return false;
    },
    close() {
      closed = true;
    },
  };
}

/** Log levels at which Fastify logs no line for an ordinary request. */
const LEVELS_WITHOUT_REQUEST_LOGS = new Set(["warn", "error", "fatal", "silent"]);

/**
 * Puts `routes` in front of `app`'s. They take requests only while `app`'s log level is one at which
 * Fastify logs no line per request (at `info`, Fastify answers and logs every one), and none once `app`
 * starts closing.
 */
export function registerFrontRoutes(
  app: FastifyInstance,
  server: FrontedServer,
  routes: FrontRoute[],
  options: Pick<FrontRoutesOptions, "freshness" | "requestId" | "responseSeries">,
): void {
  const front = frontRoutes(routes, {
    ...options,
    logsEveryRequest: () => !LEVELS_WITHOUT_REQUEST_LOGS.has(app.log.level),
    log: app.log,
  });
  server.setFront(front.front);
  app.addHook("preClose", (done) => {
    front.close();
    done();
  });
}
