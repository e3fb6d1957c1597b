import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { systemClock } from "../../src/domain/clock.js";
import { createSecretHasher } from "../../src/domain/credentials.js";
import { createOrganizationWithOwner } from "../../src/services/organizations.js";
import { type OpenedKeyStore, openKeyStore } from "../../src/store/open-database.js";
import { basicAuth } from "../helpers/build-test-app.js";
import { createPostgresSchema, type PostgresSchema } from "../helpers/postgres-schema.js";
import { latchkey } from "../helpers/processes.js";
import { startThrowawayRedis, type ThrowawayRedis } from "../helpers/redis-server.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { type Auth, call, type Reply, statuses } from "./node-calls.js";
import { type NodeProcess, showNodeOutputOnFailure, startNode } from "./node-processes.js";

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/**
 * The spec's limits are per organization, not per node. Three real server processes share one
 * PostgreSQL schema and one Redis (a redis-server of this suite's own, so it can be stopped without
 * disturbing the shared one), and every promise is checked across them.
 */
describeWithServices(["postgres", "redisServer"], "three latchkey nodes, one truth", (services) => {
  let schema: PostgresSchema;
  let redis: ThrowawayRedis;
  let store: OpenedKeyStore;
  let nodes: NodeProcess[] = [];
  const node = (i: number) => nodes[i % nodes.length] as NodeProcess;

  beforeAll(async () => {
    schema = await createPostgresSchema(services.postgres);
    redis = await startThrowawayRedis(services.redisServer);
    const env = {
      LATCHKEY_DATABASE_URL: schema.url,
      LATCHKEY_REDIS_URL: redis.url,
      LATCHKEY_REDIS_PREFIX: `lk-multinode-${randomUUID()}`,
      // On: the three nodes start together over an empty database, which the first test checks.
      LATCHKEY_BOOTSTRAP: "print",
    };
    nodes = await Promise.all([1, 2, 3].map(() => startNode(env)));
    store = await openKeyStore(schema.url);
  }, scaledMs(60_000));

  showNodeOutputOnFailure(() => nodes);

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await store?.close();
    await redis?.stop();
    await schema?.drop();
  });

  const hasher = createSecretHasher(undefined);
  async function newOrganization(): Promise<{ orgId: string; owner: Auth }> {
    const { organization, owner, secret } = await createOrganizationWithOwner(
      { store, hasher, clock: systemClock },
      `org-${randomUUID()}`,
    );
    return { orgId: organization.id, owner: basicAuth(owner.apiId, secret) };
  }

  /** `count` requests at once, spread round-robin over the three nodes. */
  function spread(count: number, send: (n: NodeProcess, i: number) => Promise<Reply>): Promise<Reply[]> {
    return Promise.all(Array.from({ length: count }, (_, i) => send(node(i), i)));
  }

  test("nodes started together over an empty database migrate it once and bootstrap one organization", async () => {
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "select count(*)::int as n from organizations where name = 'default'",
      );
      expect(rows[0].n).toBe(1);
    } finally {
      await client.end();
    }
    // A node's output reaches this process through a pipe, possibly after its HTTP answers: wait for it.
    const printed = () => nodes.filter((n) => n.output().includes("created organization 'default'"));
    await vi.waitFor(() => expect(printed().length).toBeGreaterThan(0));
    expect(printed()).toHaveLength(1);
  });

  test("60 creates at once over three nodes: exactly 20 admitted for the organization", async () => {
    const { stdout } = await latchkey(["org", "create", "--name", "writers", "--json"], {
      LATCHKEY_DATABASE_URL: schema.url,
    });
    const created = JSON.parse(stdout) as {
      organization: { id: string };
      key: { api_id: string; api_key: string };
    };
    const owner = basicAuth(created.key.api_id, created.key.api_key);
    const replies = await spread(60, (n) => call(n, "POST", "/v1/api-keys", owner, { permissions: [] }));
    expect(statuses(replies)).toEqual({ 200: 20, 429: 40 });
    for (const reply of replies.filter((r) => r.status === 429)) {
      expect(reply.body?.code).toBe("rate_limited");
      expect(Number(reply.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }

    // An operator raises the allowance with the CLI; every node applies it (overrides are cached for
    // a second), and the nodes still share one count: 5 more, not 15. Each node is asked until it
    // admits one create; until then it refuses, which takes no slot.
    await latchkey(
      ["org", "limits", "--org", created.organization.id, "--group", "api-key:write", "--quota", "25"],
      {
        LATCHKEY_DATABASE_URL: schema.url,
      },
    );
    const firsts: Reply[] = [];
    for (const n of nodes) {
      const admitted = await vi.waitFor(
        async () => {
          const reply = await call(n, "POST", "/v1/api-keys", owner, { permissions: [] });
          expect(reply.status).toBe(200);
          return reply;
        },
        { timeout: 10_000, interval: 100 },
      );
      firsts.push(admitted);
    }
    const raised = await spread(15, (n) => call(n, "POST", "/v1/api-keys", owner, { permissions: [] }));
    expect(statuses(raised)).toEqual({ 200: 2, 429: 13 });
    for (const reply of [...firsts, ...raised])
      expect(reply.headers.get("ratelimit-policy")).toBe('"api-key:write";q=25;w=60');
  });

  test("150 reads at once over three nodes: exactly 100 admitted", async () => {
    const { owner } = await newOrganization();
    const replies = await spread(150, (n) => call(n, "GET", "/v1/api-keys", owner));
    expect(statuses(replies)).toEqual({ 200: 100, 429: 50 });
  });

  test("30 creates at once at 95 keys over three nodes: exactly 5 created, the quota holds at 100", async () => {
    const { orgId, owner } = await newOrganization();
    // Lift the write allowance so only the key quota decides; set before any request, so no node
    // holds a cached allowance for this organization.
    await store.setQuota(orgId, "api-key:write", 1000);
    for (let batch = 0; batch < 94; batch += 47) {
      const filled = await spread(47, (n) => call(n, "POST", "/v1/api-keys", owner, { permissions: [] }));
      expect(statuses(filled)).toEqual({ 200: 47 });
    }
    const replies = await spread(30, (n) => call(n, "POST", "/v1/api-keys", owner, { permissions: [] }));
    expect(statuses(replies)).toEqual({ 200: 5, 409: 25 });
    for (const reply of replies.filter((r) => r.status === 409))
      expect(reply.body?.code).toBe("key_quota_exceeded");
    const listed = await store.listKeys(orgId, { limit: 200, includeDisabled: true, withPermissions: [] });
    expect(listed).toHaveLength(100);
  });

  test("a key disabled through node 1 is refused by nodes 2 and 3 at once, and accepted again after a re-enable", async () => {
    const { owner } = await newOrganization();
    const created = await call(node(0), "POST", "/v1/api-keys", owner, {
      name: "app",
      permissions: ["api_keys:read"],
    });
    const key = basicAuth(created.body?.api_id as string, created.body?.api_key as string);
    const id = created.body?.id as string;
    expect((await call(node(1), "GET", "/v1/api-keys", key)).status).toBe(200);
    expect((await call(node(2), "GET", "/v1/api-keys", key)).status).toBe(200);

    expect((await call(node(0), "DELETE", `/v1/api-keys/${id}`, owner)).status).toBe(204);
    expect((await call(node(1), "GET", "/v1/api-keys", key)).status).toBe(401);
    expect((await call(node(2), "GET", "/v1/api-keys", key)).status).toBe(401);

    const enabled = await call(node(0), "POST", `/v1/api-keys/${id}`, owner, {
      name: "app",
      permissions: ["api_keys:read"],
      disabled: false,
    });
    expect(enabled.status).toBe(200);
    expect((await call(node(1), "GET", "/v1/api-keys", key)).status).toBe(200);
    expect((await call(node(2), "GET", "/v1/api-keys", key)).status).toBe(200);
  });

  test("with Redis down no request waits or fails; when it is back the nodes share one allowance again", async () => {
    const { owner } = await newOrganization();
    await redis.stop();
    const during = [
      ...(await spread(30, (n) => call(n, "GET", "/v1/api-keys", owner))),
      ...(await spread(15, (n) => call(n, "POST", "/v1/api-keys", owner, { permissions: [] }))),
    ];
    for (let i = 0; i < 6; i++) during.push(await call(node(i), "GET", "/v1/api-keys", owner));
    // Every request was answered while Redis was still down, so none waited for it to come back; how
    // long a node waits for a Redis that does not answer is a figure of bench/redis-outage.mjs.
    expect(during.filter((r) => r.status >= 500)).toEqual([]);
    for (const n of nodes) {
      const ready = await call(n, "GET", "/readyz", { authorization: "" });
      expect(ready.body).toMatchObject({ status: "degraded", rate_limiter: "degraded", database: "ok" });
      await vi.waitFor(() => expect(occurrences(n.output(), "Redis unreachable")).toBeGreaterThan(0));
      expect(occurrences(n.output(), "Redis unreachable")).toBe(1);
    }

    await redis.start();
    await vi.waitFor(
      async () => {
        for (const n of nodes) {
          expect((await call(n, "GET", "/readyz", { authorization: "" })).body?.rate_limiter).toBe("ok");
        }
      },
      { timeout: 10_000, interval: 100 },
    );
    for (const n of nodes) {
      await vi.waitFor(() => expect(occurrences(n.output(), "Redis is back")).toBeGreaterThan(0));
      expect(occurrences(n.output(), "Redis is back")).toBe(1);
    }
    const fresh = await newOrganization();
    const replies = await spread(60, (n) =>
      call(n, "POST", "/v1/api-keys", fresh.owner, { permissions: [] }),
    );
    expect(statuses(replies)).toEqual({ 200: 20, 429: 40 });
  });
});
