import calculateSlot from "cluster-key-slot";
import { expect, test } from "vitest";
import { loadConfig } from "../../src/config.js";
import { EMPTY_ROUTE_TABLE } from "../../src/domain/route-table.js";
import { deploymentBucket, organizationKeys } from "../../src/redis/key-names.js";
import { describeTopology, parseRedisUrl } from "../../src/redis/redis-url.js";
import { startSummary } from "../../src/start-log.js";

test("the three topologies of LATCHKEY_REDIS_URL", () => {
  expect(parseRedisUrl("redis://:pw@10.0.0.1:6380/2")).toEqual({
    kind: "single",
    url: "redis://:pw@10.0.0.1:6380/2",
  });
  expect(parseRedisUrl("redis+cluster://10.0.0.1:7000, 10.0.0.2,[::1]:7002")).toEqual({
    kind: "cluster",
    seeds: [
      { host: "10.0.0.1", port: 7000 },
      { host: "10.0.0.2", port: 6379 },
      { host: "::1", port: 7002 },
    ],
  });
  expect(parseRedisUrl("redis+sentinel://app:p%40ss@s1:26380,s2/cache-main")).toEqual({
    kind: "sentinel",
    sentinels: [
      { host: "s1", port: 26380 },
      { host: "s2", port: 26379 },
    ],
    masterName: "cache-main",
    username: "app",
    password: "p@ss",
  });
});

test.each([
  ["redis+cluster://", /names no seed/],
  ["redis+cluster://h1:7000/0", /a cluster URL has no path/],
  ["redis+cluster://h1:7000?tls=1", /query or fragment/],
  ["redis+cluster://h_1:7000", /'h_1:7000' is not a host:port seed/],
  ["redis+sentinel://s1:26379", /ends with \/<master name>/],
  ["redis+sentinel://s1:26379/a/b", /ends with \/<master name>/],
  ["redis+sentinel://s1:0/m", /port outside 1..65535/],
  ["memcached://h1", /use redis:\/\/host:port/],
])("%s is refused: %s", (url, problem) => {
  expect(() => parseRedisUrl(url)).toThrow(problem);
});

test("the start log and every refusal name the topology, never a password", () => {
  const config = loadConfig({
    LATCHKEY_REDIS_URL: "redis+sentinel://app:hunter2@s1:26379,s2:26379/main",
    LATCHKEY_REDIS_REPLICAS_ACK: "1",
  });
  const summary = JSON.stringify(
    startSummary(config, EMPTY_ROUTE_TABLE, "0.0.0", "http://127.0.0.1:8080", { limiterHealthy: true }),
  );
  expect(summary).toContain(
    "Redis Sentinel master 'main' (sentinels s1:26379, s2:26379), replica acknowledgement on",
  );
  expect(summary).toContain('"redis_topology":"sentinel"');
  expect(summary).not.toContain("hunter2");
  expect(describeTopology(parseRedisUrl("redis+cluster://u:hunter2@h1:1,h2:2"))).toBe(
    "Redis cluster (seeds h1:1, h2:2)",
  );
  expect(describeTopology(parseRedisUrl("rediss://u:hunter2@cache:6380"))).toBe("Redis rediss://cache:6380");
  expect(() => loadConfig({ LATCHKEY_REDIS_URL: "redis+cluster://u:hunter2@h1:1,h 2" })).toThrow(
    /^Invalid configuration: LATCHKEY_REDIS_URL 'redis\+cluster:\/\/u:\*\*\*@h1:1,h 2': 'h 2' is not a host:port seed/,
  );
});

test("every key of one organization hashes to one slot; deployment-wide keys to the slot of {latchkey}", () => {
  for (const orgId of ["org_a", "org_7Gq2xZ", "org_with:colons"]) {
    const keys = organizationKeys("latchkey", orgId);
    const slots = new Set(
      [keys.bucket("api-key:read"), keys.bucket("proxy:write"), keys.version, keys.writing].map((k) =>
        calculateSlot(k),
      ),
    );
    expect(slots).toEqual(new Set([calculateSlot(`{${orgId}}`)]));
  }
  // The prefix separates deployments without moving the slot.
  expect(calculateSlot(organizationKeys("staging", "org_a").version)).toBe(calculateSlot("{org_a}"));
  const console = [
    deploymentBucket("latchkey", "sign-in-account", "ab12"),
    deploymentBucket("x", "actions", "usr_1"),
  ];
  expect(new Set(console.map((k) => calculateSlot(k)))).toEqual(new Set([calculateSlot("{latchkey}")]));
});
