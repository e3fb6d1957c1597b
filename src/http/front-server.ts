import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from "node:http";
import type { FastifyServerFactory } from "fastify";

/** The options Fastify applies to the server it creates itself. */
interface ServerTimeouts {
  http?: ServerOptions;
  keepAliveTimeout: number;
  requestTimeout: number;
  connectionTimeout: number;
  maxRequestsPerSocket: number;
}

/** Fastify's own request handler, which every request a front handler does not answer goes on to. */
export type FastifyHandler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Looks at a request before Fastify does. Returns false to leave it to Fastify at once; true when it
 * took the request, which it then either answers or hands to `fastify` itself, later.
 */
export type FrontHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  fastify: FastifyHandler,
) => boolean;

export interface FrontedServer {
  /** Fastify's `serverFactory` option: the HTTP server Fastify listens with. */
  serverFactory: FastifyServerFactory;
  /** Puts a handler in front of Fastify's (the services it needs exist only after Fastify does). */
  setFront(front: FrontHandler): void;
}

/**
 * The HTTP server Fastify would create itself, with one slot in front of Fastify's handler for the
 * routes that sit in front of every request a platform serves (front-routes.ts). Everything else, and
 * every request the front handler does not finish, goes through Fastify as usual.
 */
export function frontedServer(): FrontedServer {
  let front: FrontHandler | undefined;
  const serverFactory: FastifyServerFactory = (fastify, rawOptions) => {
    // Fastify passes its options with its defaults filled in (fastify.js, processOptions).
    const options = rawOptions as unknown as ServerTimeouts;
    const server: Server = createServer(options.http ?? {}, (request, response) => {
      if (!front?.(request, response, fastify)) fastify(request, response);
    });
    // What Fastify does to the server it creates (fastify/lib/server.js), which a factory replaces.
    server.keepAliveTimeout = options.keepAliveTimeout;
    server.requestTimeout = options.requestTimeout;
    server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
  return {
    serverFactory,
    setFront(handler) {
      front = handler;
    },
  };
}
