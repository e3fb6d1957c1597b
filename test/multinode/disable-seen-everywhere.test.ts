import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { expectChangeSeenAtOnce } from "../helpers/change-under-load.js";
import { createPostgresSchema, type PostgresSchema } from "../helpers/postgres-schema.js";
import { latchkey } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";
import { type NodeProcess, startNode } from "./node-processes.js";

const REPETITIONS = 8;

/**
 * Three nodes over one PostgreSQL schema and one Redis: a key disabled through node 1 is refused by
 * nodes 2 and 3 on the first request that starts after the disable answered, while several clients
 * keep every node busy with that key. Whatever a node caches, it must never serve a stale key.
 */
describeWithServices(["postgres", "redis"], "a disable is seen by every node at once", (services) => {
  let schema: PostgresSchema;
  let nodes: NodeProcess[] = [];
  let owner: { authorization: string };

  beforeAll(async () => {
    schema = await createPostgresSchema(services.postgres);
    const env = { LATCHKEY_DATABASE_URL: schema.url, LATCHKEY_BOOTSTRAP: "off" };
    const { stdout } = await latchkey(["org", "create", "--name", "acme", "--json"], env);
    const created = JSON.parse(stdout) as {
      organization: { id: string };
      key: { api_id: string; api_key: string };
    };
    owner = basicAuth(created.key.api_id, created.key.api_key);
    for (const group of ["api-key:read", "api-key:write"]) {
      await latchkey(
        ["org", "limits", "--org", created.organization.id, "--group", group, "--quota", "1000000"],
        env,
      );
    }
    const nodeEnv = {
      ...env,
      LATCHKEY_REDIS_URL: services.redis,
      LATCHKEY_REDIS_PREFIX: `lk-disable-${randomUUID()}`,
    };
    nodes = await Promise.all([1, 2, 3].map(() => startNode(nodeEnv)));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await schema?.drop();
  });

  test(`disabled through node 1, refused by nodes 2 and 3 at once (${REPETITIONS} times under load)`, async () => {
    const [writer, ...readers] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    for (let i = 0; i < REPETITIONS; i++) {
      const response = await fetch(`${writer.baseUrl}/v1/api-keys`, {
        method: "POST",
        headers: { ...owner, "content-type": "application/json" },
        body: JSON.stringify({ permissions: ["api_keys:read"] }),
      });
      const created = (await response.json()) as { id: string; api_id: string; api_key: string };
      const auth = basicAuth(created.api_id, created.api_key);
      await expectChangeSeenAtOnce({
        readers: readers.map((n) => n.baseUrl),
        request: (base) => fetch(`${base}/v1/api-keys/${created.id}`, { headers: auth }),
        before: 200,
        after: 401,
        change: async () => {
          const disabled = await fetch(`${writer.baseUrl}/v1/api-keys/${created.id}`, {
            method: "DELETE",
            headers: owner,
          });
          expect(disabled.status).toBe(204);
        },
      });
    }
  }, 120_000);
});
