// The baseline: a bare Fastify 5 route returning a constant JSON document shaped and sized like a key
// record. No logger, no hooks, no schema: what Node and Fastify cost on this machine, nothing more.
import Fastify from "fastify";
import { document } from "./key-document.mjs";
import { printReady, stopOnSignal } from "./ready.mjs";

const app = Fastify({ logger: false });
app.get("/v1/api-keys/:id", async () => document);
const targets = { bare: { path: `/v1/api-keys/${document.id}`, headers: {} } };

// Controls (BENCH_SPIN_US="5,20", run.mjs --spin): the same route plus that many µs of pure CPU work
// per request, to show what ratio a given amount of extra work allows on this machine.
const spins = (process.env.BENCH_SPIN_US ?? "")
  .split(",")
  .map(Number)
  .filter((us) => us > 0);
for (const spinUs of spins) {
  app.get(`/spin/${spinUs}/:id`, async () => {
    const end = performance.now() + spinUs / 1000;
    while (performance.now() < end) {
      // busy: the point is to use the CPU
    }
    return document;
  });
  targets[`bare+spin${spinUs}us`] = { path: `/spin/${spinUs}/${document.id}`, headers: {} };
}

await app.listen({ host: "127.0.0.1", port: 0 });
stopOnSignal(() => app.close());
printReady(app, targets);
