// The second baseline: bare.mjs's route with what latchkey's default access log costs and nothing
// else: Fastify's pino logger (a child logger per request, with its request id) and one line per
// request at completion, with the access log's fields, written to a file through pino's asynchronous
// destination as latchkey writes standard output. latchkey over this baseline is what latchkey's own
// work costs; this baseline over bare.mjs is what logging one line per request costs on the machine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { LogController } from "fastify";
import pino from "pino";
import { document } from "./key-document.mjs";
import { printReady, stopOnSignal } from "./ready.mjs";

const directory = mkdtempSync(join(tmpdir(), "latchkey-bench-bare-logged-"));
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
app.get("/v1/api-keys/:id", async () => document);

await app.listen({ host: "127.0.0.1", port: 0 });
stopOnSignal(async () => {
  await app.close();
  rmSync(directory, { recursive: true, force: true });
});
printReady(app, { "bare+log": { path: `/v1/api-keys/${document.id}`, headers: {} } });
