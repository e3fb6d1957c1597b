import type { FastifyInstance } from "fastify";
import type { RateLimiter } from "../../ratelimit/rate-limiter.js";
import type { DatabaseUse } from "../../store/key-store.js";

/** Liveness and readiness for load balancers and orchestrators; neither needs credentials. */
export async function healthRoutes(
  app: FastifyInstance,
  { store, limiter }: { store: DatabaseUse; limiter: RateLimiter },
): Promise<void> {
  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));

  app.get("/readyz", { schema: { hide: true } }, async (request, reply) => {
    let database: "ok" | "unreachable" = "ok";
    try {
      await store.ping();
    } catch (error) {
      request.log.warn({ err: error }, "database unreachable on readiness check");
      database = "unreachable";
    }
    // A limiter that fell back to memory still serves requests: the node is ready, but degraded.
    const rateLimiter = limiter.healthy ? "ok" : "degraded";
    const status = database !== "ok" ? "unavailable" : rateLimiter === "ok" ? "ok" : "degraded";
    return reply.code(database === "ok" ? 200 : 503).send({ status, database, rate_limiter: rateLimiter });
  });
}
