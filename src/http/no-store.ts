import type { FastifyInstance } from "fastify";

/** The `Cache-Control` of every per-caller answer. */
export const NO_STORE = "no-store";

/**
 * `Cache-Control: no-store` on every response of the routes registered in this plugin scope, errors
 * included: keys, decisions and usage are per caller and change at any moment.
 */
export function sendNoStore(app: FastifyInstance): void {
  app.addHook("onSend", (_request, reply, payload, done) => {
    reply.header("Cache-Control", NO_STORE);
    done(null, payload);
  });
}
