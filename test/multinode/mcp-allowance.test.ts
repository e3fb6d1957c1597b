import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { systemClock } from "../../src/domain/clock.js";
import { createSecretHasher } from "../../src/domain/credentials.js";
import { createOrganizationWithOwner } from "../../src/services/organizations.js";
import { type OpenedKeyStore, openKeyStore } from "../../src/store/open-database.js";
import { basicAuth } from "../helpers/build-test-app.js";
import { createPostgresSchema, type PostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { callTool, connectMcp } from "../mcp/mcp-client.js";
import { expectSharedProxyWriteAllowance } from "../mcp/shared-allowance.js";
import { type NodeProcess, startNode } from "./node-processes.js";

/**
 * REST and MCP share one allowance per organization across nodes too: three `dist/` processes over one
 * PostgreSQL schema and the shared Redis (a prefix of this suite's own).
 */
describeWithServices(["postgres", "redis"], "MCP and REST on three nodes, one allowance", (services) => {
  let schema: PostgresSchema;
  let store: OpenedKeyStore;
  let nodes: NodeProcess[] = [];
  const urls = () => nodes.map((n) => n.baseUrl);

  beforeAll(async () => {
    schema = await createPostgresSchema(services.postgres);
    const env = {
      LATCHKEY_DATABASE_URL: schema.url,
      LATCHKEY_REDIS_URL: services.redis,
      LATCHKEY_REDIS_PREFIX: `lk-mcp-${randomUUID()}`,
      LATCHKEY_BOOTSTRAP: "off",
      // Far longer than the suite: no slot expires while it runs on a loaded machine.
      LATCHKEY_RATE_WINDOW_SECONDS: "3600",
    };
    // One node first, so that the others start over a migrated schema.
    nodes = [await startNode(env)];
    nodes.push(...(await Promise.all([startNode(env), startNode(env)])));
    store = await openKeyStore(schema.url);
  }, scaledMs(60_000));

  afterEach((context) => {
    if (context.task.result?.state !== "fail") return;
    for (const [i, n] of nodes.entries()) console.error(`--- node ${i + 1} ---\n${n.output().slice(-4000)}`);
  });

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await store?.close();
    await schema?.drop();
  });

  async function newOwner() {
    const { owner, secret } = await createOrganizationWithOwner(
      { store, hasher: createSecretHasher(undefined), clock: systemClock },
      `org-${randomUUID()}`,
    );
    return basicAuth(owner.apiId, secret);
  }

  test("10 REST + 10 MCP proxy writes over three nodes exhaust proxy:write; the 21st is refused on both sides", async () => {
    await expectSharedProxyWriteAllowance(urls(), await newOwner());
  });

  test("15 REST and 15 MCP writes at once over three nodes: exactly 20 admitted in all", async () => {
    const owner = await newOwner();
    const clients = await Promise.all(urls().map((url) => connectMcp(url, owner)));
    const rest = Array.from({ length: 15 }, (_, i) =>
      fetch(`${urls()[i % 3]}/v1/og-configs`, {
        method: "POST",
        headers: { ...owner, "content-type": "application/json" },
        body: JSON.stringify({ name: `rest ${i}` }),
      }).then((response) => response.status === 200),
    );
    const mcp = Array.from({ length: 15 }, (_, i) =>
      callTool(clients[i % 3]!, "create_og_config", { content: { name: `mcp ${i}` } }).then(
        (answer) => !answer.isError,
      ),
    );
    const admitted = (await Promise.all([...rest, ...mcp])).filter(Boolean).length;
    expect(admitted).toBe(20);
    const listed = await callTool(clients[0]!, "list_og_configs", { count: 100 });
    expect((listed.structured.item as { data: unknown[] }).data).toHaveLength(20);
  });
});
