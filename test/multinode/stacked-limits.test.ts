import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { authorizeOver } from "../helpers/platform-http.js";
import { createPostgresSchema, type PostgresSchema } from "../helpers/postgres-schema.js";
import { cliOrganization, latchkey } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { call } from "./node-calls.js";
import { type NodeProcess, showNodeOutputOnFailure, startNode } from "./node-processes.js";

/**
 * Stacked windows, cost and counting per key on three `node dist/main.js` processes over one
 * PostgreSQL schema and one Redis: concurrent bursts spread over the nodes admit exactly what every
 * window allows, and each admission is in every window (one atomic script per decision).
 */
const PROCESS_TEST_MS = 90_000;

describeWithServices(["postgres", "redis"], "stacked and per-key limits on three nodes", (services) => {
  let schema: PostgresSchema;
  let nodes: NodeProcess[] = [];
  let serviceToken = "";
  let orgId = "";
  let owner = { authorization: "" };
  let redis: Redis;
  let dir = "";
  const prefix = `lk-stacked-${randomUUID()}`;

  beforeAll(async () => {
    schema = await createPostgresSchema(services.postgres);
    dir = mkdtempSync(join(tmpdir(), "latchkey-stacked-"));
    const groups = join(dir, "groups.json");
    writeFileSync(
      groups,
      JSON.stringify({
        // Per organization: 10 a minute, 15 an hour (the minute binds a burst).
        render: {
          policies: [
            { quota: 10, window_seconds: 60 },
            { quota: 15, window_seconds: 3600 },
          ],
        },
        // Per key: 4 a minute, 50 an hour each.
        thumbs: {
          policies: [
            { quota: 4, window_seconds: 60 },
            { quota: 50, window_seconds: 3600 },
          ],
          per: "key",
        },
      }),
    );
    const database = { LATCHKEY_DATABASE_URL: schema.url, LATCHKEY_BOOTSTRAP: "off" };
    const created = await cliOrganization(database);
    orgId = created.orgId;
    owner = basicAuth(created.owner.apiId, created.owner.secret);
    const token = await latchkey(["service-token", "create", "--name", "tests", "--json"], database);
    serviceToken = (JSON.parse(token.stdout) as { token: string }).token;
    const env = {
      ...database,
      LATCHKEY_REDIS_URL: services.redis,
      LATCHKEY_REDIS_PREFIX: prefix,
      LATCHKEY_GROUPS: groups,
    };
    nodes = await Promise.all([1, 2, 3].map(() => startNode(env)));
    redis = new Redis(services.redis);
  }, scaledMs(60_000));

  showNodeOutputOnFailure(() => nodes);

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    redis?.disconnect();
    await schema?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const node = (i: number) => nodes[i % nodes.length] as NodeProcess;
  const burst = (
    n: number,
    body: (i: number) => Record<string, unknown>,
    authorization = owner.authorization,
  ) =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        authorizeOver(node(i).baseUrl, serviceToken, {
          authorization,
          permission: "images:create",
          ...body(i),
        }),
      ),
    );

  test(
    "a burst of mixed costs over three nodes takes exactly what the tightest window holds, in every window",
    async () => {
      const costOf = (i: number) => (i % 3 === 0 ? 2 : 1);
      const decisions = await burst(60, (i) => ({ group: "render", cost: costOf(i) }));
      expect(decisions.every((d) => d.status === 200)).toBe(true);
      const taken = decisions.reduce((sum, d, i) => sum + (d.body.allowed ? costOf(i) : 0), 0);
      // One log serves both windows (no key per window), holding what was taken, never above 10.
      const minute = await redis.zcard(`${prefix}:{${orgId}}:rl:render`);
      expect(await redis.keys(`${prefix}:{${orgId}}:rl:*`)).toEqual([`${prefix}:{${orgId}}:rl:render`]);
      expect(minute).toBe(taken);
      expect(minute).toBeLessThanOrEqual(10);
      // 60 requests cannot leave more than one slot free: at worst a cost of 2 did not fit the last one.
      expect(minute).toBeGreaterThanOrEqual(9);
      const refusals = decisions.filter((d) => !d.body.allowed);
      expect(refusals.every((d) => d.body.error?.code === "rate_limited")).toBe(true);
      expect(refusals[0]?.body.headers["RateLimit-Policy"]).toBe(
        '"render/60";q=10;w=60, "render/3600";q=15;w=3600',
      );
    },
    scaledMs(PROCESS_TEST_MS),
  );

  test(
    "a group counted per key: each key gets exactly its own allowance across nodes, a key's own rate_limits theirs",
    async () => {
      const newKey = async (body: Record<string, unknown> = {}) => {
        const reply = await call(node(0), "POST", "/v1/api-keys", owner, {
          permissions: ["images:create"],
          ...body,
        });
        expect(reply.status).toBe(200);
        const key = reply.body as { api_id: string; api_key: string };
        return basicAuth(key.api_id, key.api_key).authorization;
      };
      const [first, second, limited] = [
        await newKey(),
        await newKey(),
        await newKey({
          rate_limits: {
            thumbs: {
              policies: [
                { quota: 2, window_seconds: 60 },
                { quota: 20, window_seconds: 3600 },
              ],
            },
          },
        }),
      ];
      const [a, b, c] = await Promise.all(
        [first, second, limited].map((authorization) =>
          burst(30, () => ({ group: "thumbs" }), authorization),
        ),
      );
      const allowed = (decisions: Awaited<ReturnType<typeof burst>> | undefined) =>
        (decisions ?? []).filter((d) => d.body.allowed).length;
      expect([allowed(a), allowed(b), allowed(c)]).toEqual([4, 4, 2]);
    },
    scaledMs(PROCESS_TEST_MS),
  );
});
