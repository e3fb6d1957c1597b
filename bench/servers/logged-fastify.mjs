// Fastify as the baselines run it with latchkey's default access log: pino through its asynchronous
// destination into a file, a child logger per request with its request id, and one line per request
// at completion with the access log's fields. `close()` removes the file's folder.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { LogController } from "fastify";
import pino from "pino";

export function loggedFastify(name) {
  const directory = mkdtempSync(join(tmpdir(), `latchkey-bench-${name}-`));
  const app = Fastify({
    logger: { level: "info", stream: pino.destination({ dest: join(directory, "access.log"), sync: false }) },
    logController: new LogController({ requestIdLogLabel: "request_id", disableRequestLogging: true }),
  });
  app.addHook("onResponse", (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 1000) / 1000,
        organization_id: null,
      },
      "request completed",
    );
    done();
  });
  return {
    app,
    async close() {
      await app.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
