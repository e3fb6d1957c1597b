import type { FastifyInstance } from "fastify";

/**
 * Past the grace, the process exits this long after the connections were cut even if closing the
 * stores has not finished: the whole shutdown stays within the grace plus one second.
 */
const EXIT_MARGIN_MS = 500;

/**
 * Stops a node on SIGTERM or SIGINT: it stops accepting connections at once, answers the requests it
 * already received (a request arriving meanwhile on an open connection is `503 shutting_down`, see
 * shutting-down.ts), cuts every connection still open when `graceSeconds` have passed (a client
 * trickling a body cannot hold the node), and exits 0 within the grace plus one second whatever its
 * clients do. `exit` is `process.exit` outside tests.
 */
export function shutDown(
  app: FastifyInstance,
  signal: string,
  graceSeconds: number,
  exit: (code: number) => void,
): void {
  const graceMs = graceSeconds * 1000;
  app.log.info({ signal, grace_seconds: graceSeconds }, "shutting down");
  const cut = setTimeout(() => {
    app.log.warn({ grace_seconds: graceSeconds }, "shutdown grace over: closing every connection still open");
    app.server.closeAllConnections();
  }, graceMs);
  const deadline = setTimeout(() => {
    app.log.warn("shutdown grace over: exiting before the stores finished closing");
    exit(0);
  }, graceMs + EXIT_MARGIN_MS);
  app.close().then(
    () => {
      clearTimeout(cut);
      clearTimeout(deadline);
      exit(0);
    },
    (error: unknown) => {
      app.log.error({ err: error }, "error during shutdown");
      exit(1);
    },
  );
}
