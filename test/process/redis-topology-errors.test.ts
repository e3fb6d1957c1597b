import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { freePort } from "../helpers/free-port.js";
import { latchkeyStatus, startServer, tempDir } from "../helpers/processes.js";
import { startThrowawayCluster, type ThrowawayCluster } from "../helpers/redis-cluster.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";

/** `latchkey serve` with `redisUrl` (and `env`) on a fresh SQLite file: its exit code and what it wrote. */
async function serve(redisUrl: string | undefined, env: Record<string, string> = {}) {
  const result = await latchkeyStatus(["serve", "--port", String(await freePort())], {
    LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
    LATCHKEY_BOOTSTRAP: "off",
    ...(redisUrl === undefined ? {} : { LATCHKEY_REDIS_URL: redisUrl }),
    ...env,
  });
  return { ...result, lines: result.stderr.trim().split("\n") };
}

/** Refused: a non-zero exit and one line that names the variable and says what is wrong. */
function expectOneLine(result: Awaited<ReturnType<typeof serve>>, ...says: RegExp[]) {
  expect(result.code).not.toBe(0);
  expect(result.lines).toHaveLength(1);
  for (const what of says) expect(result.lines[0]).toMatch(what);
}

test.each([
  ["a cluster URL without seeds", "redis+cluster://", /LATCHKEY_REDIS_URL.*names no seed/],
  [
    "a seed that is not host:port",
    "redis+cluster://127.0.0.1:7000,no host",
    /LATCHKEY_REDIS_URL.*'no host' is not a host:port seed/,
  ],
  ["a port out of range", "redis+cluster://127.0.0.1:70000", /LATCHKEY_REDIS_URL.*port outside 1..65535/],
  [
    "a sentinel URL without a master name",
    "redis+sentinel://127.0.0.1:26379",
    /LATCHKEY_REDIS_URL.*ends with \/<master name>/,
  ],
  [
    "an unknown scheme",
    "redis+shard://127.0.0.1:7000",
    /LATCHKEY_REDIS_URL.*use a redis:\/\/, rediss:\/\/, redis\+cluster:\/\//,
  ],
])("%s: one line naming LATCHKEY_REDIS_URL, exit non-zero", async (_what, url, says) => {
  expectOneLine(await serve(url), says);
});

test("a password in a malformed URL is never repeated", async () => {
  const result = await serve("redis+cluster://admin:hunter2-secret@127.0.0.1:7000,bad host");
  expectOneLine(result, /LATCHKEY_REDIS_URL 'redis\+cluster:\/\/admin:\*\*\*@/);
  expect(result.stderr + result.stdout).not.toContain("hunter2");
});

test("replica acknowledgement without Redis: one line naming both variables", async () => {
  expectOneLine(
    await serve(undefined, { LATCHKEY_REDIS_REPLICAS_ACK: "1" }),
    /LATCHKEY_REDIS_REPLICAS_ACK=1 needs LATCHKEY_REDIS_URL/,
  );
});

test("an unreachable seed list or Sentinel set: one line naming LATCHKEY_REDIS_URL and every address tried", async () => {
  const [a, b] = [await freePort(), await freePort()];
  expectOneLine(
    await serve(`redis+cluster://127.0.0.1:${a},127.0.0.1:${b}`),
    /^latchkey: LATCHKEY_REDIS_URL: no seed of the cluster answers/,
    new RegExp(`127.0.0.1:${a}: .*ECONNREFUSED.*127.0.0.1:${b}`),
  );
  expectOneLine(
    await serve(`redis+sentinel://127.0.0.1:${a},127.0.0.1:${b}/mymaster`),
    /^latchkey: LATCHKEY_REDIS_URL: no sentinel answers for master 'mymaster'/,
  );
});

describeWithServices(
  ["redis", "redisServer", "redisCli"],
  "a Redis that is not what the URL says",
  (services) => {
    let bare: ThrowawayCluster;
    beforeAll(async () => {
      bare = await startThrowawayCluster(services.redisServer, services.redisCli, {
        masters: 1,
        replicas: 0,
      });
    }, scaledMs(60_000));
    afterAll(() => bare?.stop());

    test("a single Redis given as a cluster seed: one line saying it is no cluster node", async () => {
      const seed = services.redis.replace(/^redis:\/\//, "");
      expectOneLine(
        await serve(`redis+cluster://${seed}`),
        /^latchkey: LATCHKEY_REDIS_URL: .* is not a usable cluster node \(ERR This instance has cluster support disabled\)/,
      );
    });

    test("a cluster without replicas while LATCHKEY_REDIS_REPLICAS_ACK=1: one line, exit non-zero; without it the node starts", async () => {
      expectOneLine(
        await serve(bare.url, { LATCHKEY_REDIS_REPLICAS_ACK: "1" }),
        /^latchkey: LATCHKEY_REDIS_REPLICAS_ACK=1 needs a replica for every master, but the cluster's master 127\.0\.0\.1:\d+ has none/,
      );
      const server = await startServer(
        {
          LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
          LATCHKEY_BOOTSTRAP: "off",
          LATCHKEY_REDIS_URL: bare.url,
        },
        await freePort(),
      );
      const ready = (await (await fetch(`${server.baseUrl}/readyz`)).json()) as Record<string, unknown>;
      expect(ready).toMatchObject({ rate_limiter: "ok", redis: { topology: "cluster" } });
    });
  },
);
