import { randomUUID } from "node:crypto";
import { basicAuth } from "../helpers/build-test-app.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { cliOrganization } from "../helpers/processes.js";
import { type NodeProcess, startNode } from "./node-processes.js";

/** Three nodes sharing one database and one Redis, and the organization the test works in. */
export interface ThreeNodes {
  nodes: [NodeProcess, NodeProcess, NodeProcess];
  /** Basic credentials of the organization's owner key. */
  owner: { authorization: string };
  orgId: string;
  /** The settings naming the database, for CLI commands beside the nodes. */
  database: Record<string, string>;
  /** The settings naming the nodes' Redis and prefix, for CLI commands whose changes they must see. */
  redis: Record<string, string>;
  /** Stops the nodes and drops the schema. */
  stop(): Promise<void>;
}

/**
 * Three nodes over a fresh PostgreSQL schema and a Redis prefix of their own (`label` names it), with an
 * organization made by the CLI whose key groups allow far more than any load a test sends. `env` adds
 * settings to every node.
 */
export async function startThreeNodes(
  services: { postgres: string; redis: string },
  label: string,
  env: Record<string, string> = {},
): Promise<ThreeNodes> {
  const schema = await createPostgresSchema(services.postgres);
  const database = { LATCHKEY_DATABASE_URL: schema.url, LATCHKEY_BOOTSTRAP: "off" };
  const { orgId, owner } = await cliOrganization(database);
  const redis = { LATCHKEY_REDIS_URL: services.redis, LATCHKEY_REDIS_PREFIX: `lk-${label}-${randomUUID()}` };
  const nodeEnv = { ...database, ...redis, ...env };
  const nodes = (await Promise.all([1, 2, 3].map(() => startNode(nodeEnv)))) as ThreeNodes["nodes"];
  return {
    nodes,
    owner: basicAuth(owner.apiId, owner.secret),
    orgId,
    database,
    redis,
    async stop() {
      await Promise.all(nodes.map((node) => node.stop()));
      await schema.drop();
    },
  };
}
