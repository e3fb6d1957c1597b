import type { FastifyInstance, HTTPMethods } from "fastify";
import { LatchkeyError } from "../domain/errors.js";
import { sendError } from "./error-handler.js";

const METHODS: HTTPMethods[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * Answers 405 with `Allow` for the methods a known path does not serve, instead of a misleading 404.
 * A path served with GET also answers HEAD (Fastify adds it), as load balancers and uptime checks expect.
 */
export function rejectOtherMethods(app: FastifyInstance, url: string, served: HTTPMethods[]): void {
  const allowed = served.flatMap((method): HTTPMethods[] => (method === "GET" ? ["GET", "HEAD"] : [method]));
  app.route({
    method: METHODS.filter((method) => !allowed.includes(method)),
    url,
    schema: { hide: true },
    handler: async (request, reply) => {
      reply.header("Allow", allowed.join(", "));
      return sendError(
        reply,
        new LatchkeyError(
          "method_not_allowed",
          `${request.method} is not allowed here; use ${allowed.join(" or ")}.`,
        ),
      );
    },
  });
}
