import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { onTestFinished } from "vitest";
import type { BodyReplay } from "../../src/http/body-replay.js";
import type { DecisionHandover } from "../../src/http/decision-handover.js";
import type { Freshness } from "../../src/cache/freshness.js";
import { type FrontRoute, frontRoutes } from "../../src/http/front-routes.js";
import { frontedServer } from "../../src/http/front-server.js";

/** What the stand-in for Fastify was handed with one request: its decision, and the body read. */
export interface Handed {
  decided: "nothing" | "failure" | "allowed" | string;
  body?: string;
}

export interface StandInOptions {
  handover: DecisionHandover;
  replay?: BodyReplay;
  freshness?: Freshness | undefined;
  /** Whether Fastify would log every request now (default: never). */
  logsEveryRequest?: () => boolean;
}

export interface StandIn {
  port: number;
  /** What the front routes reported as their own failures. */
  errors: unknown[];
  /** Closes the front routes, as the app's `preClose` does. */
  close(): void;
}

/**
 * A server with `routes` in front (front-routes.ts) of a stand-in for Fastify that answers 599 with what
 * it was handed (as JSON, `Handed`): which requests the front answers and which it hands on, with what.
 * The whole app over real sockets is tested in test/http/fast-key-read.test.ts and fast-authorize.test.ts.
 */
export async function standInServer(
  routes: FrontRoute[],
  { handover, replay, freshness, logsEveryRequest = () => false }: StandInOptions,
): Promise<StandIn> {
  const errors: unknown[] = [];
  const front = frontRoutes(routes, {
    freshness,
    logsEveryRequest,
    log: { error: (details: unknown) => errors.push(details) },
    requestId: () => randomUUID(),
  });
  const fastify = (request: IncomingMessage, response: ServerResponse) => {
    const decided = handover.take(request);
    const body = replay?.take(request);
    const handed: Handed = {
      decided: !decided
        ? "nothing"
        : "failure" in decided
          ? "failure"
          : decided.decision.allowed
            ? "allowed"
            : decided.decision.error.code,
      ...(body && { body: body.toString() }),
    };
    response.writeHead(599, { "content-type": "application/json" }).end(JSON.stringify(handed));
  };
  const fronted = frontedServer();
  fronted.setFront(front.front);
  const server = fronted.serverFactory(fastify, {
    keepAliveTimeout: 5000,
    requestTimeout: 0,
    connectionTimeout: 0,
    maxRequestsPerSocket: 0,
  }) as Server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, errors, close: front.close };
}
