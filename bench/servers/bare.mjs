// The baseline: a bare Fastify 5 route returning a constant JSON document shaped and sized like a key
// record. No logger, no hooks, no schema: what Node and Fastify cost on this machine, nothing more.
import Fastify from "fastify";
import { printReady, stopOnSignal } from "./ready.mjs";

const document = {
  id: "key_0123456789ABCDEFabcdef",
  api_id: "lkid_0123456789ABCDEFabcdef",
  name: "bench target",
  description: "The key the benchmark reads back, with a few permissions.",
  enabled: true,
  permissions: ["images:create", "images:read", "templates:read", "api_keys:read"],
  all_future_permissions: false,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
};

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
