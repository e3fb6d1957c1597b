import { randomUUID } from "node:crypto";
import { expect, onTestFinished, test, vi } from "vitest";
import { buildTestApp } from "../helpers/build-test-app.js";
import { sampleValue } from "../helpers/metrics-page.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { startThrowawayRedis } from "../helpers/redis-server.js";
import { describeWithServices } from "../helpers/services.js";

/** The gauges that read a real backend at scrape time: PostgreSQL's pool and the Redis limiter's state. */

describeWithServices(["postgres"], "metrics over PostgreSQL", ({ postgres }) => {
  test("the pool's total, idle and waiting connections are reported", async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const testApp = await buildTestApp({ env: { LATCHKEY_DATABASE_URL: schema.url } });
    const owner = await testApp.createOrganization();
    expect((await testApp.app.inject({ url: "/v1/api-keys", headers: owner.headers })).statusCode).toBe(200);

    const page = (await testApp.app.inject({ url: "/metrics" })).body;
    expect(sampleValue(page, "latchkey_database_info", { dialect: "postgres" })).toBe(1);
    const total = sampleValue(page, "latchkey_database_pool_connections", { state: "total" });
    const idle = sampleValue(page, "latchkey_database_pool_connections", { state: "idle" });
    expect(total).toBeGreaterThanOrEqual(1);
    expect(total).toBeLessThanOrEqual(10);
    expect(idle).toBeLessThanOrEqual(total as number);
    expect(sampleValue(page, "latchkey_database_pool_connections", { state: "waiting" })).toBe(0);
  });
});

describeWithServices(["redisServer"], "metrics of the Redis limiter", ({ redisServer }) => {
  test("the backend gauge moves to memory while Redis is down, and back", async () => {
    const redis = await startThrowawayRedis(redisServer);
    onTestFinished(() => redis.stop());
    const testApp = await buildTestApp({
      env: { LATCHKEY_REDIS_URL: redis.url, LATCHKEY_REDIS_PREFIX: `lk-metrics-${randomUUID()}` },
    });
    const gauges = async () => {
      const page = (await testApp.app.inject({ url: "/metrics" })).body;
      return {
        redis: sampleValue(page, "latchkey_rate_limiter_backend", { backend: "redis" }),
        memory: sampleValue(page, "latchkey_rate_limiter_backend", { backend: "memory" }),
        degraded: sampleValue(page, "latchkey_rate_limiter_degraded"),
      };
    };
    expect(await gauges()).toEqual({ redis: 1, memory: 0, degraded: 0 });

    await redis.stop();
    // The limiter pings Redis every 500 ms; generous bounds for a loaded machine.
    await vi.waitFor(async () => expect(await gauges()).toEqual({ redis: 0, memory: 1, degraded: 1 }), {
      timeout: 15_000,
      interval: 100,
    });
    await redis.start();
    await vi.waitFor(async () => expect(await gauges()).toEqual({ redis: 1, memory: 0, degraded: 0 }), {
      timeout: 15_000,
      interval: 100,
    });
  });
});
