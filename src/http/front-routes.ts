import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { Freshness } from "../cache/freshness.js";
import type { FastifyHandler, FrontedServer, FrontHandler } from "./front-server.js";

/** One request taken in front of Fastify, to be answered there or handed to `fastify`. */
export interface FrontExchange {
  request: IncomingMessage;
  response: ServerResponse;
  fastify: FastifyHandler;
  /** `performance.now()` when the request arrived, for the HTTP duration metric. */
  started: number;
}

/**
 * A route answered in front of Fastify when it succeeds (fast-key-read.ts, fast-authorize.ts): given a
 * request, the function that answers it, or undefined when the request is not exactly this route's.
 */
export type FrontRoute = (
  request: IncomingMessage,
) => ((exchange: FrontExchange) => Promise<void>) | undefined;

export interface FrontRoutesOptions {
  /** Where SQLite's caches are exact only once asked after the request started. */
  freshness?: Freshness | undefined;
  /** True while Fastify would log every request (at `info` and below): it must then answer them. */
  logsEveryRequest(): boolean;
  /** Where a failure of a front route itself is reported (every other error is Fastify's to log). */
  log: Pick<FastifyBaseLogger, "error">;
}

export interface FrontRoutes {
  front: FrontHandler;
  /** From now on every request goes to Fastify (which answers 503 while it closes). */
  close(): void;
}

/**
 * The routes that sit in front of every request a platform serves, answered without Fastify's request
 * lifecycle while no line per request is logged and the app is not closing. Each request first takes the
 * freshness hop Fastify's first `onRequest` hook gives every other request.
 */
export function frontRoutes(routes: FrontRoute[], options: FrontRoutesOptions): FrontRoutes {
  const { freshness, log } = options;
  let closed = false;
  return {
    front(request, response, fastify) {
      if (closed || options.logsEveryRequest()) return false;
      let answer: ((exchange: FrontExchange) => Promise<void>) | undefined;
      for (const route of routes) {
        answer = route(request);
        if (answer) break;
      }
      if (!answer) return false;
      const exchange: FrontExchange = { request, response, fastify, started: performance.now() };
      const go = () => {
        answer(exchange).catch((error: unknown) => {
          log.error({ err: error }, "request answered in front of Fastify failed");
          response.destroy();
        });
      };
      if (freshness) freshness.beginRequest(go);
      else go();
      return true;
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
  freshness: Freshness | undefined,
): void {
  const front = frontRoutes(routes, {
    freshness,
    logsEveryRequest: () => !LEVELS_WITHOUT_REQUEST_LOGS.has(app.log.level),
    log: app.log,
  });
  server.setFront(front.front);
  app.addHook("preClose", (done) => {
    front.close();
    done();
  });
}
