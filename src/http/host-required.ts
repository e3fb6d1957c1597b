import type { FastifyInstance } from "fastify";
import { invalidRequest } from "../domain/errors.js";
import { sendError } from "./error-handler.js";

/**
 * An HTTP/1.1 request without a Host header is refused (RFC 9112, section 3.2) with the documented
 * 400, rather than with the empty 400 Node sends itself (`requireHostHeader`, off in server-settings.ts).
 */
export function registerHostRequired(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    const raw = request.raw;
    if (raw.headers.host !== undefined || raw.httpVersionMajor !== 1 || raw.httpVersionMinor === 0) {
      done();
      return;
    }
    sendError(reply, invalidRequest("Invalid request: an HTTP/1.1 request needs a Host header."));
  });
}
