import type { FastifyInstance } from "fastify";
import type { RateLimiter } from "../../ratelimit/rate-limiter.js";
import type { RedisTopologyHealth } from "../../redis/topology-health.js";
import type { DatabaseUse } from "../../store/key-store.js";

/** Liveness and readiness for load balancers and orchestrators; neither needs credentials. */
export async function healthRoutes(
  app: FastifyInstance,
  {
    store,
    limiter,
    redisHealth,
  }: { store: DatabaseUse; limiter: RateLimiter; redisHealth?: () => RedisTopologyHealth },
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
    // A limiter that fell back to memory still serves requests: the node is ready, but degraded. So
    // is a node whose Redis topology is degraded (a master down, a failover, a master without replica).
    const rateLimiter = limiter.healthy ? "ok" : "degraded";
    const redis = redisHealth?.();
    const degraded = rateLimiter !== "ok" || redis?.state === "degraded";
    const status = database !== "ok" ? "unavailable" : degraded ? "degraded" : "ok";
    return reply.code(database === "ok" ? 200 : 503).send({
      status,
      database,
      rate_limiter: rateLimiter,
      ...(redis ? { redis: { topology: redis.topology, state: redis.state, problems: redis.problems } } : {}),
    });
  });
}
