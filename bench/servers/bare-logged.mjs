// The second baseline: bare.mjs's route with what latchkey's default access log costs and nothing
// else: Fastify's pino logger (a child logger per request, with its request id) and one line per
// request at completion, with the access log's fields, written to a file through pino's asynchronous
// destination as latchkey writes standard output. latchkey over this baseline is what latchkey's own
// work costs; this baseline over bare.mjs is what logging one line per request costs on the machine.
import { document } from "./key-document.mjs";
import { loggedFastify } from "./logged-fastify.mjs";
import { printReady, stopOnSignal } from "./ready.mjs";

const { app, close } = loggedFastify("bare-logged");
app.get("/v1/api-keys/:id", async () => document);

await app.listen({ host: "127.0.0.1", port: 0 });
stopOnSignal(close);
printReady(app, { "bare+log": { path: `/v1/api-keys/${document.id}`, headers: {} } });
