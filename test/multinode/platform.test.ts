import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { authorizeOver, tally } from "../helpers/platform-http.js";
import { createPostgresSchema, type PostgresSchema } from "../helpers/postgres-schema.js";
import { latchkey } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { type NodeProcess, showNodeOutputOnFailure, startNode } from "./node-processes.js";

/**
 * The platform side over several nodes: three `node dist/main.js` processes share one PostgreSQL
 * schema (credits, keys, service tokens) and one Redis (group rate limits). Credits are exact across
 * them, and a revocation or a disable is seen by every node on its very next request.
 */
// Each test runs the CLI as processes and sends bursts of requests: a loaded machine needs the margin.
const PROCESS_TEST_MS = 90_000;

describeWithServices(["postgres", "redis"], "the platform side on three nodes", (services) => {
  let schema: PostgresSchema;
  let nodes: NodeProcess[] = [];
  let cliEnv: Record<string, string>;
  let dir: string;
  const node = (i: number) => nodes[i % nodes.length] as NodeProcess;

  beforeAll(async () => {
    schema = await createPostgresSchema(services.postgres);
    dir = mkdtempSync(join(tmpdir(), "latchkey-platform-"));
    const routes = join(dir, "routes.json");
    writeFileSync(
      routes,
      JSON.stringify([{ method: "POST", path: "/v1/image", permission: "images:create", credits: 1 }]),
    );
    // The operator commands get the nodes' Redis, as docs/cli.md asks: a revocation by the CLI then
    // tells every node at once.
    cliEnv = {
      LATCHKEY_DATABASE_URL: schema.url,
      LATCHKEY_REDIS_URL: services.redis,
      LATCHKEY_REDIS_PREFIX: `lk-platform-${randomUUID()}`,
    };
    const env = {
      ...cliEnv,
      LATCHKEY_BOOTSTRAP: "off",
      LATCHKEY_ROUTES: routes,
    };
    // Migrate once first, so that the three nodes start over a ready schema.
    await latchkey(["migrate"], cliEnv);
    nodes = await Promise.all([1, 2, 3].map(() => startNode(env)));
  }, scaledMs(60_000));

  showNodeOutputOnFailure(() => nodes);

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await schema?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A new organization (its owner's Authorization value) through the operator CLI. */
  async function newOrganization(): Promise<{ orgId: string; authorization: string }> {
    const { stdout } = await latchkey(["org", "create", "--name", `org-${randomUUID()}`, "--json"], cliEnv);
    const created = JSON.parse(stdout) as {
      organization: { id: string };
      key: { api_id: string; api_key: string };
    };
    return {
      orgId: created.organization.id,
      authorization: basicAuth(created.key.api_id, created.key.api_key).authorization,
    };
  }

  async function newServiceToken(): Promise<{ id: string; token: string }> {
    const { stdout } = await latchkey(["service-token", "create", "--name", "tests", "--json"], cliEnv);
    return JSON.parse(stdout) as { id: string; token: string };
  }

  async function stored(orgId: string): Promise<{ used: number; images: number }> {
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      const used = await client.query(
        "select coalesce(sum(used), 0)::int as n from credit_periods where org_id = $1",
        [orgId],
      );
      const images = await client.query(
        "select coalesce(sum(images), 0)::int as n from usage_hours where org_id = $1",
        [orgId],
      );
      return { used: used.rows[0].n, images: images.rows[0].n };
    } finally {
      await client.end();
    }
  }

  test(
    "200 concurrent consumers of 1 credit against 50, spread over three nodes: exactly 50 allowed",
    async () => {
      const { orgId, authorization } = await newOrganization();
      const { token } = await newServiceToken();
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          authorizeOver(node(i).baseUrl, token, { authorization, permission: "images:create", credits: 1 }),
        ),
      );
      expect(replies.every((reply) => reply.status === 200)).toBe(true);
      expect(tally(replies)).toEqual({ allowed: 50, plan_limit_exceeded: 150 });
      const used = replies.filter((r) => r.body.allowed).map((r) => Number(r.body.headers["x-renders-used"]));
      expect([...used].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await stored(orgId)).toEqual({ used: 50, images: 50 });
    },
    PROCESS_TEST_MS,
  );

  test(
    "overages on: 200 concurrent consumers over three nodes are all allowed and all counted",
    async () => {
      const { orgId, authorization } = await newOrganization();
      const { token } = await newServiceToken();
      await latchkey(["org", "plan", "--org", orgId, "--overages", "on"], cliEnv);
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          authorizeOver(node(i).baseUrl, token, { authorization, permission: "images:create", credits: 1 }),
        ),
      );
      expect(tally(replies)).toEqual({ allowed: 200 });
      expect(await stored(orgId)).toEqual({ used: 200, images: 200 });
      const usage = await fetch(`${node(1).baseUrl}/v1/usage`, { headers: { authorization } });
      const report = (await usage.json()) as { per_billing_period: { total_images: number }[] };
      expect(report.per_billing_period.at(-1)?.total_images).toBe(200);
    },
    PROCESS_TEST_MS,
  );

  test(
    "a group named in authorize is one allowance across the nodes (Redis): 30 at once, 20 admitted",
    async () => {
      const { authorization } = await newOrganization();
      const { token } = await newServiceToken();
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          authorizeOver(node(i).baseUrl, token, {
            authorization,
            permission: "proxies:create_update",
            group: "proxy:write",
          }),
        ),
      );
      expect(tally(replies)).toEqual({ allowed: 20, rate_limited: 10 });
    },
    PROCESS_TEST_MS,
  );

  test(
    "a revoked service token is refused on the very next request on every node",
    async () => {
      const { authorization } = await newOrganization();
      const { id, token } = await newServiceToken();
      const ask = (n: NodeProcess) =>
        authorizeOver(n.baseUrl, token, { authorization, permission: "images:read" });
      for (const n of nodes) expect((await ask(n)).body.allowed).toBe(true);
      const forward = (n: NodeProcess) =>
        fetch(`${n.baseUrl}/v1/forward-auth`, {
          headers: {
            "x-latchkey-service-token": token,
            "x-forwarded-method": "POST",
            "x-forwarded-uri": "/v1/image",
            authorization,
          },
        });
      for (const n of nodes) expect((await forward(n)).status).toBe(200);

      await latchkey(["service-token", "revoke", id], cliEnv);
      for (const n of nodes) {
        const refused = await ask(n);
        expect(refused.status).toBe(401);
        expect(refused.body.code).toBe("invalid_service_token");
        const gateway = await forward(n);
        expect(gateway.status).toBe(401);
        expect(((await gateway.json()) as { code: string }).code).toBe("invalid_service_token");
      }
      // Another token still works: the revocation touched only that one.
      const other = await newServiceToken();
      expect(
        (await authorizeOver(node(0).baseUrl, other.token, { authorization, permission: "images:read" })).body
          .allowed,
      ).toBe(true);
    },
    PROCESS_TEST_MS,
  );

  test(
    "a customer key disabled through one node is refused on the very next request on every node",
    async () => {
      const { authorization: owner } = await newOrganization();
      const { token } = await newServiceToken();
      const created = await fetch(`${node(0).baseUrl}/v1/api-keys`, {
        method: "POST",
        headers: { authorization: owner, "content-type": "application/json" },
        body: JSON.stringify({ name: "worker", permissions: ["images:create"] }),
      });
      const key = (await created.json()) as { id: string; api_id: string; api_key: string };
      const authorization = basicAuth(key.api_id, key.api_key).authorization;
      const ask = (n: NodeProcess) =>
        authorizeOver(n.baseUrl, token, { authorization, permission: "images:create", credits: 1 });
      for (const n of nodes) expect((await ask(n)).body.allowed).toBe(true);

      const disabled = await fetch(`${node(1).baseUrl}/v1/api-keys/${key.id}`, {
        method: "DELETE",
        headers: { authorization: owner },
      });
      expect(disabled.status).toBe(204);
      for (const n of nodes) {
        const refused = await ask(n);
        expect(refused.body).toMatchObject({ allowed: false, status: 401, key: null });
        const gateway = await fetch(`${n.baseUrl}/v1/forward-auth`, {
          headers: {
            "x-latchkey-service-token": token,
            "x-forwarded-method": "POST",
            "x-forwarded-uri": "/v1/image",
            authorization,
          },
        });
        expect(gateway.status).toBe(401);
        expect(gateway.headers.get("www-authenticate")).toContain("Basic");
      }
    },
    PROCESS_TEST_MS,
  );
});
