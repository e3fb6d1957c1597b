import { randomBytes, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, expect, onTestFinished, test, vi } from "vitest";
import { LatchkeyError } from "../../src/domain/errors.js";
import { createRedisRateLimiter } from "../../src/ratelimit/redis-rate-limiter.js";
import { openRedis, waitUntilReady } from "../../src/redis/connection.js";
import { monitorTopology } from "../../src/redis/topology-health.js";
import { buildTestApp } from "../helpers/build-test-app.js";
import { seedKey } from "../helpers/http-keys.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { startThrowawayRedis, type ThrowawayRedis } from "../helpers/redis-server.js";
import { describeWithServices } from "../helpers/services.js";

/**
 * LATCHKEY_REDIS_REPLICAS_ACK=1 on a master and a replica of this file's own (docs/several-nodes.md):
 * an admission counts only once `WAIT` confirms a replica holds it; one that no replica confirms is
 * refused at the deadline and retracted; a master known to have no replica refuses at once; a key
 * change starts only once a replica holds the mark that keeps every node from caching its records.
 */
describeWithServices(["postgres", "redisServer"], "replica acknowledgement", (services) => {
  let master: ThrowawayRedis;
  let replica: ThrowawayRedis;

  beforeAll(async () => {
    master = await startThrowawayRedis(services.redisServer);
    replica = await startThrowawayRedis(services.redisServer, undefined, {
      args: ["--replicaof", "127.0.0.1", String(master.port)],
    });
  });
  afterAll(async () => {
    await replica?.stop();
    await master?.stop();
  });

  async function connect(): Promise<Redis> {
    const redis = openRedis(master.url) as Redis;
    onTestFinished(() => redis.disconnect());
    if (!(await waitUntilReady(redis, 5000))) throw new Error("the master does not answer");
    await vi.waitFor(async () => expect(await redis.info("replication")).toMatch(/slave0:.*state=online/), {
      timeout: 20_000,
    });
    return redis;
  }

  /** Paused for the length of `work`, resumed whatever happens. */
  async function withReplicaPaused<T>(work: () => Promise<T>): Promise<T> {
    replica.pause();
    try {
      return await work();
    } finally {
      replica.resume();
    }
  }

  test("with the replica paused nothing is admitted: the request is refused at the deadline, holding no slot; without acknowledgement it would have been", async () => {
    const redis = await connect();
    const acknowledged = createRedisRateLimiter(redis, { replicasAck: true, deadlineMs: 1000 });
    const plain = createRedisRateLimiter(redis, { deadlineMs: 1000 });
    const bucket = `lk-test:${randomUUID()}`;
    expect((await acknowledged.consume(bucket, 3, 60_000)).type).toBe("allow");

    const [refused, unacknowledged] = await withReplicaPaused(() =>
      Promise.all([
        acknowledged.consume(bucket, 3, 60_000).catch((error: unknown) => error),
        plain.consume(`${bucket}-plain`, 3, 60_000),
      ]),
    );
    expect(unacknowledged.type).toBe("allow");
    expect(refused).toBeInstanceOf(LatchkeyError);
    expect(refused).toMatchObject({ code: "rate_limiter_unavailable", retryAfterSeconds: 1 });
    expect((refused as Error).message).toMatch(/No Redis replica confirmed holding this request's slot/);
    // Retracted: the refused request holds nothing, so the allowance left is intact.
    await vi.waitFor(async () => expect(await redis.zcard(bucket)).toBe(1));
    expect((await acknowledged.consume(bucket, 3, 60_000)).type).toBe("allow");
    const last = await acknowledged.consume(bucket, 3, 60_000);
    expect(last).toMatchObject({ type: "allow", remaining: 0 });
    expect((await acknowledged.consume(bucket, 3, 60_000)).type).toBe("deny");
  });

  test("once the master is known to have no replica, a limited request is refused at once, not after the deadline", async () => {
    const redis = await connect();
    const monitor = monitorTopology(redis, { topology: "single", replicasAck: true, intervalMs: 100 });
    onTestFinished(() => monitor.close());
    const limiter = createRedisRateLimiter(redis, {
      replicasAck: true,
      deadlineMs: 60_000,
      replicaMissing: monitor.replicaMissing,
    });
    await replica.stop();
    onTestFinished(() => replica.start());
    await vi.waitFor(async () => expect((await monitor.check()).mastersWithoutReplica).toBe(1), {
      timeout: 10_000,
    });
    expect(monitor.current()).toMatchObject({ state: "degraded", topology: "single" });
    expect(monitor.current().problems.join()).toMatch(
      /has no replica online: its limited requests answer 503/,
    );
    // A deadline of a minute would outlast this test: only the monitor's knowledge explains the refusal.
    const refused = await limiter
      .consume(`lk-test:${randomUUID()}`, 3, 60_000)
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "rate_limiter_unavailable" });
    expect((refused as Error).message).toMatch(/has no replica online/);
  });

  test("a key change waits for a replica to hold its record version: with the replica paused it is refused and nothing is written", async () => {
    await connect();
    const schema = await createPostgresSchema(services.postgres);
    onTestFinished(() => schema.drop());
    const testApp = await buildTestApp({
      env: {
        LATCHKEY_DATABASE_URL: schema.url,
        LATCHKEY_REDIS_URL: master.url,
        LATCHKEY_REDIS_PREFIX: `lk_test_${randomBytes(6).toString("hex")}`,
        LATCHKEY_REDIS_REPLICAS_ACK: "1",
        LATCHKEY_REDIS_DEADLINE_MS: "1000",
      },
    });
    const owner = await testApp.createOrganization();
    const key = await seedKey(testApp, owner, { permissions: ["api_keys:read"] });
    const { store } = testApp.services;
    const change = () => store.changeKey(key.orgId, key.id, (current) => ({ ...current, enabled: false }));
    const refused = await withReplicaPaused(() => change().catch((error: unknown) => error));
    expect(refused).toMatchObject({ code: "service_unavailable" });
    // The reason goes to the log and the error's cause; the client is told the change was not made.
    expect(((refused as Error).cause as Error).message).toMatch(/no replica acknowledged the record version/);
    expect((await store.findKey(key.orgId, key.id))?.enabled).toBe(true);
    expect((await change())?.enabled).toBe(false);
  });
});
