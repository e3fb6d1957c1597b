import { randomUUID } from "node:crypto";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { systemClock } from "../../src/domain/clock.js";
import { createSecretHasher } from "../../src/domain/credentials.js";
import { createOrganizationWithOwner } from "../../src/services/organizations.js";
import { type OpenedKeyStore, openKeyStore } from "../../src/store/open-database.js";
import { basicAuth } from "../helpers/build-test-app.js";
import { startCpuHogs, stopCpuHogs } from "../helpers/cpu-hogs.js";
import { authorizeOver } from "../helpers/platform-http.js";
import { createPostgresSchema, type PostgresSchema } from "../helpers/postgres-schema.js";
import { latchkey } from "../helpers/processes.js";
import { startThrowawayRedis, type ThrowawayRedis } from "../helpers/redis-server.js";
import { describeWithServices } from "../helpers/services.js";
import { callTool, connectMcp } from "../mcp/mcp-client.js";
import { admitted, asked, type Auth, call, type Reply, statuses } from "./node-calls.js";
import { type NodeProcess, showNodeOutputOnFailure, startNode } from "./node-processes.js";

/**
 * Repetitions of the bursts under a CPU hog: a few in CI; `bench/limiter-under-load.mjs` runs 30
 * and reports each run's admissions (LATCHKEY_TEST_LIMITER_REPORT names the file they go to).
 */
const RUNS = Number(process.env.LATCHKEY_TEST_LIMITER_RUNS ?? "3");
const REPORT = process.env.LATCHKEY_TEST_LIMITER_REPORT;

/** The nodes' settings (the defaults, spelled out because the assertions below depend on them). */
const DEADLINE_MS = 1500;
const OUTAGE_AFTER_MS = 2000;

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/**
 * The shared limiter's promises when things go wrong (docs/several-nodes.md): exact across three nodes
 * while every core is busy with another process, and the outage policies when Redis (a redis-server
 * of this suite's own) is paused and killed: three nodes under `local`, two under `refuse`, all on
 * one PostgreSQL schema and one Redis prefix.
 */
describeWithServices(["postgres", "redisServer"], "the shared limiter under load and outages", (services) => {
  let schema: PostgresSchema;
  let redis: ThrowawayRedis;
  let store: OpenedKeyStore;
  let dir: string;
  let serviceToken: string;
  const local: NodeProcess[] = [];
  const refuse: NodeProcess[] = [];
  const all = () => [...local, ...refuse];

  beforeAll(async () => {
    schema = await createPostgresSchema(services.postgres);
    redis = await startThrowawayRedis(services.redisServer);
    dir = mkdtempSync(join(tmpdir(), "latchkey-limiter-"));
    const routes = join(dir, "routes.json");
    writeFileSync(
      routes,
      JSON.stringify([
        { method: "GET", path: "/v1/things", permission: "api_keys:read", group: "api-key:read" },
      ]),
    );
    const cliEnv = { LATCHKEY_DATABASE_URL: schema.url };
    await latchkey(["migrate"], cliEnv);
    const created = await latchkey(["service-token", "create", "--name", "tests", "--json"], cliEnv);
    serviceToken = (JSON.parse(created.stdout) as { token: string }).token;
    const env = {
      ...cliEnv,
      LATCHKEY_REDIS_URL: redis.url,
      LATCHKEY_REDIS_PREFIX: `lk-limiter-${randomUUID()}`,
      LATCHKEY_BOOTSTRAP: "off",
      LATCHKEY_ROUTES: routes,
      // Far longer than the suite: no slot expires while it runs on a loaded machine.
      LATCHKEY_RATE_WINDOW_SECONDS: "3600",
      LATCHKEY_REDIS_DEADLINE_MS: String(DEADLINE_MS),
      LATCHKEY_REDIS_OUTAGE_AFTER_MS: String(OUTAGE_AFTER_MS),
    };
    // One after the other: five starts at once can outlast a start deadline on a loaded machine.
    for (let i = 0; i < 3; i++)
      local.push(await startNode({ ...env, LATCHKEY_LIMITER_OUTAGE: "local" }, 60_000));
    for (let i = 0; i < 2; i++)
      refuse.push(await startNode({ ...env, LATCHKEY_LIMITER_OUTAGE: "refuse" }, 60_000));
    store = await openKeyStore(schema.url);
  }, 300_000);

  showNodeOutputOnFailure(all);

  afterAll(async () => {
    await Promise.all(all().map((n) => n.stop()));
    await store?.close();
    await redis?.stop();
    await schema?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const hasher = createSecretHasher(undefined);
  async function newOwner(): Promise<Auth> {
    const { owner, secret } = await createOrganizationWithOwner(
      { store, hasher, clock: systemClock },
      `org-${randomUUID()}`,
    );
    return basicAuth(owner.apiId, secret);
  }

  /** `count` requests at once, spread round-robin over `nodes`. */
  function spread(nodes: NodeProcess[], count: number, send: (n: NodeProcess) => Promise<Reply>) {
    return Promise.all(Array.from({ length: count }, (_, i) => send(nodes[i % nodes.length] as NodeProcess)));
  }

  const reads = (nodes: NodeProcess[], owner: Auth, count: number) =>
    spread(nodes, count, (n) => call(n, "GET", "/v1/api-keys", owner));
  const writes = (nodes: NodeProcess[], owner: Auth, count: number) =>
    spread(nodes, count, (n) => call(n, "POST", "/v1/api-keys", owner, { permissions: [] }));
  const readiness = async (n: NodeProcess) => (await call(n, "GET", "/readyz", { authorization: "" })).body;

  test(
    `150 reads against 100 and 30 writes against 20 over three nodes, every core busy: exact in each of ${RUNS} runs`,
    async () => {
      const hogs = startCpuHogs();
      const runs: { run: number; reads: number; writes: number; readsAsked: number; writesAsked: number }[] =
        [];
      try {
        for (let run = 1; run <= RUNS; run++) {
          const owner = await newOwner();
          const [read, write] = await Promise.all([reads(local, owner, 150), writes(local, owner, 30)]);
          const result = {
            run,
            reads: admitted(read),
            writes: admitted(write),
            // Requests that failed before the limiter (say, a database timeout on a loaded machine)
            // never asked it: exact means min(quota, requests that asked) admitted.
            readsAsked: asked(read),
            writesAsked: asked(write),
            readStatuses: statuses(read),
            writeStatuses: statuses(write),
            slowestMs: Math.round(Math.max(...[...read, ...write].map((r) => r.ms))),
          };
          runs.push(result);
          if (REPORT) appendFileSync(REPORT, `${JSON.stringify(result)}\n`);
        }
      } finally {
        await stopCpuHogs(hogs);
      }
      const exact = (r: (typeof runs)[number]) =>
        r.reads === Math.min(100, r.readsAsked) && r.writes === Math.min(20, r.writesAsked);
      expect(runs.filter((r) => !exact(r))).toEqual([]);
      // No node left Redis: a slow answer is not an outage.
      for (const n of local) expect(n.output()).not.toContain("Redis unreachable");
    },
    60_000 + RUNS * 20_000,
  );

  test("Redis paused: no request waits for it; after the outage time `local` counts per node and `refuse` answers 503; resumed, counting is shared again", async () => {
    const owner = await newOwner();
    // Every node caches the owner's key first, so the pause also meets the cached-key path.
    for (const n of all()) expect((await call(n, "GET", "/v1/api-keys", owner)).status).toBe(200);

    redis.pause();
    let paused = true;
    try {
      // Before the outage is declared, each request gives up on Redis at its deadline and is refused
      // (it cannot be counted exactly, and no node counts alone yet), under both policies; all of
      // this is answered while Redis is still paused.
      const during = await Promise.all(all().map((n) => call(n, "GET", "/v1/api-keys", owner)));
      expect(paused).toBe(true);
      for (const reply of during) {
        expect(reply.status).toBe(503);
        expect(reply.body?.code).toBe("rate_limiter_unavailable");
      }
      // The limiter's share is its deadline; a second is left for this 2-core machine.
      expect(Math.max(...during.map((r) => r.ms))).toBeLessThan(DEADLINE_MS + 1000);

      await vi.waitFor(
        async () => {
          for (const n of all()) expect((await readiness(n))?.rate_limiter).toBe("degraded");
        },
        { timeout: 10_000, interval: 100 },
      );
      // `local`: a node counts alone, up to the whole allowance.
      const alone = await newOwner();
      const [first] = local;
      expect(statuses(await reads([first as NodeProcess], alone, 110))).toEqual({ 200: 100, 429: 10 });
      // `refuse`: limited requests are refused, and say when to come back.
      await expectRefusals(refuse, alone);
      expect(paused).toBe(true);
    } finally {
      redis.resume();
      paused = false;
    }
    await vi.waitFor(
      async () => {
        for (const n of all()) expect((await readiness(n))?.rate_limiter).toBe("ok");
      },
      { timeout: 10_000, interval: 100 },
    );
    for (const n of all()) {
      await vi.waitFor(() => expect(occurrences(n.output(), "Redis is back")).toBe(1));
      expect(occurrences(n.output(), "Redis unreachable")).toBe(1);
    }
    expect(statuses(await reads(all(), await newOwner(), 150))).toEqual({ 200: 100, 429: 50 });
  }, 60_000);

  /** What a `refuse` node answers while Redis is away, on every surface; requests without a group pass. */
  async function expectRefusals(nodes: NodeProcess[], owner: Auth): Promise<void> {
    for (const n of nodes) {
      const refused = await call(n, "GET", "/v1/api-keys", owner);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ statusCode: 503, code: "rate_limiter_unavailable" });
      expect(refused.headers.get("retry-after")).toBe("1");
      // No group: served as usual.
      expect((await call(n, "GET", "/v1/usage", owner)).status).toBe(200);

      const decided = await authorizeOver(n.baseUrl, serviceToken, {
        authorization: owner.authorization,
        permission: "api_keys:read",
        group: "api-key:read",
      });
      expect(decided.status).toBe(200);
      expect(decided.body).toMatchObject({
        allowed: false,
        status: 503,
        error: { code: "rate_limiter_unavailable" },
        headers: { "Retry-After": "1" },
      });
      const credits = await authorizeOver(n.baseUrl, serviceToken, {
        authorization: owner.authorization,
        permission: "images:create",
        credits: 1,
      });
      expect(credits.body.allowed).toBe(true);

      const forwarded = await fetch(`${n.baseUrl}/v1/forward-auth`, {
        headers: {
          "x-latchkey-service-token": serviceToken,
          "x-forwarded-method": "GET",
          "x-forwarded-uri": "/v1/things",
          authorization: owner.authorization,
        },
      });
      expect(forwarded.status).toBe(503);
      expect(forwarded.headers.get("retry-after")).toBe("1");
      expect(((await forwarded.json()) as { code: string }).code).toBe("rate_limiter_unavailable");

      const mcp = await connectMcp(n.baseUrl, owner);
      const tool = await callTool(mcp, "list_og_configs", {});
      expect(tool.isError).toBe(true);
      expect(tool.structured.error).toMatchObject({
        code: "rate_limiter_unavailable",
        retry_after_seconds: 1,
      });
    }
  }

  test("Redis killed: every node leaves it on the lost connection at once; restarted, counting is shared again", async () => {
    const owner = await newOwner();
    for (const n of all()) expect((await call(n, "GET", "/v1/api-keys", owner)).status).toBe(200);

    await redis.stop();
    const during = await Promise.all(all().map((n) => call(n, "GET", "/v1/api-keys", owner)));
    expect(statuses(during.slice(0, local.length))).toEqual({ 200: local.length });
    expect(statuses(during.slice(local.length))).toEqual({ 503: refuse.length });
    // Not after a deadline or a silence: the lost connection is noticed on the request itself, and
    // the node reports the outage from then on.
    expect(Math.max(...during.map((r) => r.ms))).toBeLessThan(DEADLINE_MS);
    for (const n of all()) expect((await readiness(n))?.rate_limiter).toBe("degraded");
    await expectRefusals(refuse, owner);

    await redis.start();
    await vi.waitFor(
      async () => {
        for (const n of all()) expect((await readiness(n))?.rate_limiter).toBe("ok");
      },
      { timeout: 10_000, interval: 100 },
    );
    for (const n of all()) {
      await vi.waitFor(() => expect(occurrences(n.output(), "Redis is back")).toBe(2));
      expect(occurrences(n.output(), "Redis unreachable")).toBe(2);
    }
    expect(statuses(await writes(all(), await newOwner(), 30))).toEqual({ 200: 20, 429: 10 });
  }, 60_000);
});
