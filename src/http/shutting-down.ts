import type { FastifyInstance } from "fastify";
import { sendError } from "./error-handler.js";
import { shuttingDown } from "./server-errors.js";

/**
 * While the app closes: a request that arrives on a connection still open is answered `503
 * shutting_down`, so that its client retries on another node; requests received before run to their
 * answer; and every answer carries `Connection: close`, so that no connection outlives its last answer.
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
    sendError(reply, shuttingDown());
  });
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (closing) reply.header("Connection", "close");
    done(null, payload);
  });
}
