import type { FastifyInstance } from "fastify";
import { sendError } from "./error-handler.js";
import { shuttingDown } from "./server-errors.js";

/**
 * Once the app closes, a request that arrives on a connection still open (keep-alive, pipelined) is
 * answered `503 shutting_down` with `Connection: close`, so that its client retries on another node;
 * requests received before keep running to their answer.
 */
export function registerShuttingDown(app: FastifyInstance): void {
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onRequest", (_request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    reply.header("Connection", "close");
    sendError(reply, shuttingDown());
  });
}
