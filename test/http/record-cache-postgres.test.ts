import { randomBytes } from "node:crypto";
import pg from "pg";
import { expect, onTestFinished, test } from "vitest";
import { withStores } from "../../src/cli/with-stores.js";
import { basicAuth, buildTestApp, type TestApp } from "../helpers/build-test-app.js";
import { seedKey } from "../helpers/http-keys.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { startThrowawayRedis } from "../helpers/redis-server.js";
import { describeWithServices } from "../helpers/services.js";

// Every query a `pg` client sends is one round trip to PostgreSQL; the apps of this file share the
// module, so the count covers them all (each test reads it around the requests it checks).
let postgresRoundTrips = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: Parameters<typeof query>) {
  postgresRoundTrips++;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

/**
 * The record cache of PostgreSQL + Redis (src/cache/version-cached-keys.ts) within one process: what it
 * saves, what it never holds, and what happens to writes when Redis is away. Across nodes:
 * test/multinode/disable-seen-everywhere.test.ts.
 */
describeWithServices(
  ["postgres", "redis", "redisServer"],
  "record cache on PostgreSQL + Redis",
  (services) => {
    async function postgresApp(env: Record<string, string> = {}) {
      const schema = await createPostgresSchema(services.postgres);
      onTestFinished(() => schema.drop());
      const prefix = `lk_test_${randomBytes(6).toString("hex")}`;
      const testApp = await buildTestApp({
        env: {
          LATCHKEY_DATABASE_URL: schema.url,
          LATCHKEY_REDIS_URL: services.redis,
          LATCHKEY_REDIS_PREFIX: prefix,
          ...env,
        },
      });
      return { testApp, url: schema.url, prefix };
    }

    const get = (testApp: TestApp, id: string, headers: { authorization: string }) =>
      testApp.app.inject({ method: "GET", url: `/v1/api-keys/${id}`, headers });

    test("in steady state a read of a key costs no PostgreSQL round trip", async () => {
      const { testApp } = await postgresApp();
      const owner = await testApp.createOrganization();
      for (let i = 0; i < 3; i++) expect((await get(testApp, owner.id, owner.headers)).statusCode).toBe(200);
      const before = postgresRoundTrips;
      for (let i = 0; i < 50; i++) expect((await get(testApp, owner.id, owner.headers)).statusCode).toBe(200);
      // The organization's overrides are read at most once a second (src/ratelimit/management-rate-limit.ts).
      expect(postgresRoundTrips - before).toBeLessThanOrEqual(2);
      expect(testApp.services.cacheSizes()).toMatchObject({ keysByApiId: 1, keysById: 1 });
    });

    test("with LATCHKEY_RECORD_CACHE=off every read goes to PostgreSQL, and nothing is cached", async () => {
      const { testApp } = await postgresApp({ LATCHKEY_RECORD_CACHE: "off" });
      const owner = await testApp.createOrganization();
      await get(testApp, owner.id, owner.headers);
      const before = postgresRoundTrips;
      for (let i = 0; i < 20; i++) expect((await get(testApp, owner.id, owner.headers)).statusCode).toBe(200);
      expect(postgresRoundTrips - before).toBeGreaterThanOrEqual(40);
      expect(testApp.services.cacheSizes()).toEqual({});
    });

    test("unknown api_ids, wrong secrets and ids of no key never grow a cache", async () => {
      const { testApp } = await postgresApp();
      const owner = await testApp.createOrganization();
      await get(testApp, owner.id, owner.headers);
      await get(testApp, owner.id, owner.headers);
      const before = testApp.services.cacheSizes();
      for (let i = 0; i < 100; i++) {
        const unknown = basicAuth(`lkid_${randomBytes(12).toString("hex")}`, "lksk_guess");
        const wrongSecret = basicAuth(owner.apiId, `lksk_${randomBytes(12).toString("hex")}`);
        for (const headers of [unknown, wrongSecret]) {
          expect((await get(testApp, owner.id, headers)).statusCode).toBe(401);
        }
      }
      for (let i = 0; i < 50; i++) {
        const missing = await get(testApp, `key_${randomBytes(11).toString("hex")}`, owner.headers);
        expect(missing.statusCode).toBe(404);
      }
      expect(testApp.services.cacheSizes()).toEqual(before);
    });

    test("a change while Redis is down is refused with 503 and changes nothing; reads go on", async () => {
      const redis = await startThrowawayRedis(services.redisServer);
      onTestFinished(() => redis.stop());
      const { testApp } = await postgresApp({ LATCHKEY_REDIS_URL: redis.url });
      const owner = await testApp.createOrganization();
      const key = await seedKey(testApp, owner, { permissions: ["api_keys:read"] });
      expect((await get(testApp, key.id, key.headers)).statusCode).toBe(200);

      await redis.stop();
      const disable = await testApp.app.inject({
        method: "DELETE",
        url: `/v1/api-keys/${key.id}`,
        headers: owner.headers,
      });
      expect(disable.statusCode).toBe(503);
      expect(disable.json()).toEqual({
        statusCode: 503,
        error: "Service Unavailable",
        code: "service_unavailable",
        message: expect.stringMatching(/^The change was not made: Redis, .* cannot be reached/),
      });
      // The client library's words ("Stream isn't writeable", "Connection is closed") stay out of answers.
      expect(disable.json().message).toBe(
        "The change was not made: Redis, which tells every latchkey node of it, cannot be reached right now. Try again shortly.",
      );

      // Nothing was written, and reads carry on (from PostgreSQL, the limiter on this node's memory).
      const read = await get(testApp, key.id, key.headers);
      expect(read.statusCode).toBe(200);
      expect(read.json<{ enabled: boolean }>().enabled).toBe(true);
      const stored = await testApp.services.store.findKey(key.orgId, key.id);
      expect(stored?.enabled).toBe(true);

      // Once Redis is back, the same change goes through and is seen at once.
      await redis.start();
      await expect.poll(() => testApp.services.limiter.healthy, { timeout: 5000 }).toBe(true);
      const again = await testApp.app.inject({
        method: "DELETE",
        url: `/v1/api-keys/${key.id}`,
        headers: owner.headers,
      });
      expect(again.statusCode).toBe(204);
      expect((await get(testApp, key.id, key.headers)).statusCode).toBe(401);
    });

    test("a change through the CLI's stores with LATCHKEY_REDIS_URL is seen by a running node at once", async () => {
      const { testApp, url, prefix } = await postgresApp();
      const owner = await testApp.createOrganization();
      const key = await seedKey(testApp, owner, { permissions: ["api_keys:read"] });
      for (let i = 0; i < 3; i++) expect((await get(testApp, key.id, key.headers)).statusCode).toBe(200);
      expect(testApp.services.cacheSizes()).toMatchObject({ keysByApiId: 1, keysById: 1 });

      // What `latchkey ...` does in its own process: the configuration comes from the environment.
      // Set one by one and restored one by one: replacing process.env with a plain object would leave
      // it detached from the real environment for the files this worker runs next (TZ, for one).
      const names = ["LATCHKEY_DATABASE_URL", "LATCHKEY_REDIS_URL", "LATCHKEY_REDIS_PREFIX"] as const;
      const saved = names.map((name) => [name, process.env[name]] as const);
      onTestFinished(() => {
        for (const [name, value] of saved) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      });
      process.env.LATCHKEY_DATABASE_URL = url;
      process.env.LATCHKEY_REDIS_URL = services.redis;
      process.env.LATCHKEY_REDIS_PREFIX = prefix;
      await withStores(async (stores) => {
        const changed = await stores.keys.changeKey(key.orgId, key.id, (current) => ({
          ...current,
          permissions: [],
        }));
        expect(changed?.permissions).toEqual([]);
      });
      expect((await get(testApp, key.id, key.headers)).statusCode).toBe(403);
    });
    test("a plan change, through another node or the CLI's stores, is applied by the next authorize", async () => {
      const { testApp, url, prefix } = await postgresApp();
      // A second node over the same database and Redis: the change is made there.
      const other = await buildTestApp({
        env: {
          LATCHKEY_DATABASE_URL: url,
          LATCHKEY_REDIS_URL: services.redis,
          LATCHKEY_REDIS_PREFIX: prefix,
        },
      });
      const owner = await testApp.createOrganization();
      const { token } = await testApp.services.serviceTokens.create("plans");
      const authorize = async () => {
        const reply = await testApp.app.inject({
          method: "POST",
          url: "/v1/authorize",
          headers: { "x-latchkey-service-token": token },
          payload: { authorization: owner.headers.authorization, permission: "images:create", credits: 1 },
        });
        return reply.json<{ allowed: boolean; headers: Record<string, string> }>();
      };
      await testApp.services.plans.change(owner.orgId, { imageCredits: 1000 });
      // Warm: the key and the plan are now served from the cache at the organization's version. The
      // version is observed by a call not waited for, so on a busy machine it may take a few requests.
      for (let i = 0; i < 3 || (i < 50 && testApp.services.cacheSizes().plans !== 1); i++)
        expect((await authorize()).headers["x-renders-allowed"]).toBe("1000");
      expect(testApp.services.cacheSizes()).toMatchObject({ plans: 1 });

      await other.services.plans.change(owner.orgId, { imageCredits: 3 });
      const refused = await authorize();
      expect(refused.allowed).toBe(false);
      expect(refused.headers["x-renders-allowed"]).toBe("3");

      const names = ["LATCHKEY_DATABASE_URL", "LATCHKEY_REDIS_URL", "LATCHKEY_REDIS_PREFIX"] as const;
      const saved = names.map((name) => [name, process.env[name]] as const);
      onTestFinished(() => {
        for (const [name, value] of saved) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      });
      process.env.LATCHKEY_DATABASE_URL = url;
      process.env.LATCHKEY_REDIS_URL = services.redis;
      process.env.LATCHKEY_REDIS_PREFIX = prefix;
      for (let i = 0; i < 2; i++) expect((await authorize()).allowed).toBe(false);
      await withStores((stores) => stores.plans.setPlan(owner.orgId, { imageCredits: 500 }));
      const allowed = await authorize();
      expect(allowed.allowed).toBe(true);
      expect(allowed.headers["x-renders-allowed"]).toBe("500");
    });
  },
);
