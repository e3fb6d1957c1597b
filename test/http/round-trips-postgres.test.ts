import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { platformApp, type PlatformApp } from "../helpers/platform.js";
import { startOwnPostgres, type OwnPostgres } from "../helpers/own-postgres.js";
import { askRedis, startThrowawayRedis, type ThrowawayRedis } from "../helpers/redis-server.js";
import { describeWithServices } from "../helpers/services.js";
import { CURRENT_VERSION_LUA, READ_VERSION_SCRIPT } from "../../src/cache/redis-record-versions.js";
import { SLIDING_LOG_SCRIPT } from "../../src/ratelimit/redis-sliding-log.js";

/**
 * The text of the commands one script call may run: the limiter's script reads up to two versions
 * (the organization's and the service tokens', so `currentVersion` runs twice), and the confirmation
 * of a decision of no group loops over up to two pairs.
 */
const SCRIPT_TEXTS = [SLIDING_LOG_SCRIPT + CURRENT_VERSION_LUA, READ_VERSION_SCRIPT + READ_VERSION_SCRIPT];

/**
 * What one decision costs in round trips on PostgreSQL + Redis, counted by the servers themselves:
 * Redis' `INFO commandstats` and PostgreSQL's `pg_stat_statements` (every statement a client sends is
 * one round trip), on a redis-server and a PostgreSQL cluster of this file's own, so nothing else is
 * counted. A regression that adds a read of the database or a second Redis call per request fails here.
 */
describeWithServices(
  ["postgres", "redisServer"],
  "round trips per decision on PostgreSQL + Redis",
  (services) => {
    let postgres: OwnPostgres;
    let redis: ThrowawayRedis;
    let statistics: pg.Client;
    beforeAll(async () => {
      [postgres, redis] = await Promise.all([
        startOwnPostgres(["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all"]),
        startThrowawayRedis(services.redisServer),
      ]);
      statistics = new pg.Client({ connectionString: postgres.url });
      await statistics.connect();
      await statistics.query("create extension if not exists pg_stat_statements");
    }, 120_000);
    afterAll(async () => {
      await statistics?.end();
      await Promise.all([postgres?.destroy(), redis?.stop()]);
    });

    /** Statements run by every other client since the last reset (this file's own reads excluded). */
    async function postgresStatements(): Promise<number> {
      const { rows } = await statistics.query<{ n: string }>(
        "select coalesce(sum(calls), 0) as n from pg_stat_statements where query not ilike '%pg_stat_statements%'",
      );
      return Number(rows[0]?.n);
    }

    /**
     * Round trips to Redis: the scripts run (EVALSHA, EVAL) and every other command a client sent, apart
     * from the limiter's health PING and this file's INFO. Redis counts the commands a script runs
     * too; those are allowed as many times per script as the scripts' own text names them, so a client
     * command of the same name sent beside a script still shows.
     */
    function roundTrips(made: Record<string, number>): number {
      const scripts = (made.evalsha ?? 0) + (made.eval ?? 0);
      let sent = scripts;
      for (const [name, calls] of Object.entries(made)) {
        if (name === "evalsha" || name === "eval") continue;
        const perScript = Math.max(
          ...SCRIPT_TEXTS.map(
            (source) => source.match(new RegExp(`redis\\.call\\('${name}'`, "gi"))?.length ?? 0,
          ),
        );
        sent += Math.max(0, calls - perScript * scripts);
      }
      return sent;
    }

    /** Commands Redis ran, by name, except the limiter's health PING and this file's INFO. */
    async function redisCommands(): Promise<Record<string, number>> {
      const info = await askRedis(redis.port, (connection) => connection.info("commandstats"));
      const counts: Record<string, number> = {};
      for (const [, name, calls] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
        if (name !== "ping" && name !== "info" && name !== undefined) counts[name] = Number(calls);
      }
      return counts;
    }

    /** Runs `calls` requests after a warm-up, and what the servers counted for them. */
    async function countRoundTrips(calls: number, request: () => Promise<{ statusCode: number }>) {
      for (let i = 0; i < 5; i++) expect((await request()).statusCode).toBe(200);
      await statistics.query("select pg_stat_statements_reset()");
      const redisBefore = await redisCommands();
      const startedAt = Date.now();
      for (let i = 0; i < calls; i++) expect((await request()).statusCode).toBe(200);
      const seconds = (Date.now() - startedAt) / 1000;
      const redisAfter = await redisCommands();
      const redisCalls: Record<string, number> = {};
      for (const [name, count] of Object.entries(redisAfter)) {
        const made = count - (redisBefore[name] ?? 0);
        if (made > 0) redisCalls[name] = made;
      }
      return { postgres: await postgresStatements(), redis: roundTrips(redisCalls), redisCalls, seconds };
    }

    async function nodeApp(): Promise<PlatformApp> {
      const schema = await createPostgresSchema(postgres.url);
      return platformApp({
        env: {
          LATCHKEY_DATABASE_URL: schema.url,
          LATCHKEY_REDIS_URL: redis.url,
          LATCHKEY_REDIS_PREFIX: `lk-round-trips-${Date.now()}`,
          // The webhook delivery loop's poll is background work, not a request's round trip; and an
          // allowance no test reaches 80% of, so no credit alert is written.
          LATCHKEY_WEBHOOKS_POLL_MS: "60000",
          LATCHKEY_DEFAULT_IMAGE_CREDITS: "1000",
        },
      });
    }

    // Fewer than a group's quota per minute, warm-up included: every call is admitted.
    const CALLS = 40;

    test("a key read: one Redis call (the limiter's script) and no PostgreSQL round trip once cached", async () => {
      const { testApp, owner } = await nodeApp();
      const counted = await countRoundTrips(CALLS, () =>
        testApp.app.inject({ method: "GET", url: `/v1/api-keys/${owner.id}`, headers: owner.headers }),
      );
      expect(counted.redis, JSON.stringify(counted.redisCalls)).toBe(CALLS);
      // The organization's overrides are read again at most once a second (management-rate-limit.ts).
      expect(counted.postgres).toBeLessThanOrEqual(Math.ceil(counted.seconds) + 1);
    });

    test("authorize without a group or credits: one Redis call (the cache's confirmation, the service token's with it) and no PostgreSQL round trip", async () => {
      const { authorize, owner } = await nodeApp();
      const counted = await countRoundTrips(CALLS, () =>
        authorize({ authorization: owner.headers.authorization, permission: "images:create" }),
      );
      expect(counted.redis, JSON.stringify(counted.redisCalls)).toBe(CALLS);
      // The key, its organization and the service token come from the caches; only the key's last use
      // is written, about once a minute (last-use.ts).
      expect(counted.postgres).toBeLessThanOrEqual(1);
    });

    test("authorize with a group and a credit: one Redis call (the limiter's, the service token's with it) and the credit's statement", async () => {
      const { authorize, owner } = await nodeApp();
      const counted = await countRoundTrips(CALLS, () =>
        authorize({
          authorization: owner.headers.authorization,
          permission: "images:create",
          group: "api-key:read",
          credits: 1,
        }),
      );
      expect(counted.redis, JSON.stringify(counted.redisCalls)).toBe(CALLS);
      // The plan is cached at the organization's record version; the credit is one statement; the
      // overrides are read again at most once a second.
      expect(counted.postgres).toBeLessThanOrEqual(CALLS + Math.ceil(counted.seconds) + 1);
    });

    test("a stalled Redis does not hold an authorize of no group: it is decided on the database's key and token", async () => {
      const schema = await createPostgresSchema(postgres.url);
      const { authorize, owner } = await platformApp({
        env: {
          LATCHKEY_DATABASE_URL: schema.url,
          LATCHKEY_REDIS_URL: redis.url,
          LATCHKEY_REDIS_PREFIX: `lk-round-trips-stall-${Date.now()}`,
          // Nothing here gives up on Redis by itself within the test: only the cache's own bound can.
          LATCHKEY_REDIS_DEADLINE_MS: "60000",
          LATCHKEY_REDIS_OUTAGE_AFTER_MS: "60000",
        },
      });
      const body = { authorization: owner.headers.authorization, permission: "images:create" };
      for (let i = 0; i < 3; i++) expect((await authorize(body)).json()).toMatchObject({ allowed: true });
      redis.pause();
      try {
        const answer = await Promise.race([
          authorize(body).then((reply) => reply.json<{ allowed: boolean }>()),
          new Promise<"still waiting">((resolve) => setTimeout(() => resolve("still waiting"), 20_000)),
        ]);
        expect(answer).toMatchObject({ allowed: true });
      } finally {
        redis.resume();
      }
    });
  },
);
