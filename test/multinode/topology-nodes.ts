import { randomUUID } from "node:crypto";
import { setTimeout as pause } from "node:timers/promises";
import { expect, vi } from "vitest";
import { systemClock } from "../../src/domain/clock.js";
import { createSecretHasher } from "../../src/domain/credentials.js";
import { organizationKeys } from "../../src/redis/key-names.js";
import { createOrganizationWithOwner } from "../../src/services/organizations.js";
import { type OpenedKeyStore, openKeyStore } from "../../src/store/open-database.js";
import { basicAuth } from "../helpers/build-test-app.js";
import { withCpuHogs } from "../helpers/cpu-hogs.js";
import { createPostgresSchema, type PostgresSchema } from "../helpers/postgres-schema.js";
import { latchkey } from "../helpers/processes.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { admitted, asked, type Auth, call, type Reply } from "./node-calls.js";
import { type NodeProcess, startNode } from "./node-processes.js";

/** Three nodes over one PostgreSQL schema and a Redis cluster or Sentinel set, and a way to make organizations. */
export interface TopologyNodes {
  nodes: NodeProcess[];
  /** LATCHKEY_REDIS_PREFIX of the nodes. */
  prefix: string;
  /** The settings naming the database, for CLI commands beside the nodes. */
  database: Record<string, string>;
  /** A new organization's id and its owner's credentials. */
  newOrganization(): Promise<{ orgId: string; owner: Auth }>;
  stop(): Promise<void>;
}

/** The settings the failover tests rely on: a deadline that outlasts a promotion on a loaded machine. */
export const FAILOVER_DEADLINE_MS = 8000;

/**
 * Starts three nodes on `redisUrl` with replica acknowledgement and the `refuse` outage policy (no
 * node ever counts alone), a window far longer than the suite and a deadline that outlasts a failover.
 */
export async function startTopologyNodes(
  postgres: string,
  redisUrl: string,
  env: Record<string, string> = {},
): Promise<TopologyNodes> {
  const schema: PostgresSchema = await createPostgresSchema(postgres);
  await latchkey(["migrate"], { LATCHKEY_DATABASE_URL: schema.url });
  const prefix = `lk-topology-${randomUUID()}`;
  const nodeEnv = {
    LATCHKEY_DATABASE_URL: schema.url,
    LATCHKEY_BOOTSTRAP: "off",
    LATCHKEY_REDIS_URL: redisUrl,
    LATCHKEY_REDIS_PREFIX: prefix,
    LATCHKEY_REDIS_REPLICAS_ACK: "1",
    LATCHKEY_LIMITER_OUTAGE: "refuse",
    LATCHKEY_RATE_WINDOW_SECONDS: "3600",
    LATCHKEY_REDIS_DEADLINE_MS: String(FAILOVER_DEADLINE_MS),
    LATCHKEY_REDIS_OUTAGE_AFTER_MS: String(FAILOVER_DEADLINE_MS + 2000),
    ...env,
  };
  const nodes: NodeProcess[] = [];
  // One after the other: three starts at once can outlast a start deadline on a loaded machine.
  for (let i = 0; i < 3; i++) nodes.push(await startNode(nodeEnv, 60_000));
  const store: OpenedKeyStore = await openKeyStore(schema.url);
  const hasher = createSecretHasher(undefined);
  return {
    nodes,
    prefix,
    database: { LATCHKEY_DATABASE_URL: schema.url },
    async newOrganization() {
      const { organization, owner, secret } = await createOrganizationWithOwner(
        { store, hasher, clock: systemClock },
        `org-${randomUUID()}`,
      );
      return { orgId: organization.id, owner: basicAuth(owner.apiId, secret) };
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
      await store.close();
      await schema.drop();
    },
  };
}

/** The Redis key of an organization's read log: any key of the organization has its slot. */
export const organizationKey = (prefix: string, orgId: string) =>
  organizationKeys(prefix, orgId).bucket("api-key:read");

/** `count` reads at once, spread round-robin over `nodes`. */
export function reads(nodes: NodeProcess[], owner: Auth, count: number): Promise<Reply[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      call(nodes[i % nodes.length] as NodeProcess, "GET", "/v1/api-keys", owner),
    ),
  );
}

/**
 * The same exactness as on one Redis (test/multinode/limiter-under-load.test.ts): 150 reads against
 * 100 and 30 writes against 20, all at once over three nodes while every core is busy with another
 * process, admit exactly the allowances.
 */
export async function expectExactAtOnce(nodes: NodeProcess[], owner: Auth): Promise<void> {
  const [read, write] = await withCpuHogs(() =>
    Promise.all([
      reads(nodes, owner, 150),
      Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call(nodes[i % nodes.length] as NodeProcess, "POST", "/v1/api-keys", owner, { permissions: [] }),
        ),
      ),
    ]),
  );
  // Requests that failed before the limiter (a database timeout on a loaded machine) never asked it:
  // exact means min(allowance, requests that asked) admitted.
  expect(admitted(read)).toBe(Math.min(100, asked(read)));
  expect(admitted(write)).toBe(Math.min(20, asked(write)));
  expect(asked(read)).toBeGreaterThan(100);
}

/** A node's /readyz body. */
export async function readiness(node: NodeProcess) {
  return (await call(node, "GET", "/readyz", { authorization: "" })).body as {
    status: string;
    rate_limiter: string;
    redis?: { topology: string; state: string; problems: string[] };
  };
}

/**
 * Clients that keep reading through every node, each pausing between requests so that a burst spans
 * the failover instead of spending the allowance before it, until `stop`.
 */
export function startBurst(nodes: NodeProcess[], owner: Auth, clients = 6) {
  const replies: Reply[] = [];
  let stopped = false;
  const loops = Array.from({ length: clients }, async (_, client) => {
    for (let i = 0; !stopped && i < 5000; i++) {
      replies.push(
        await call(nodes[(client + i) % nodes.length] as NodeProcess, "GET", "/v1/api-keys", owner),
      );
      await pause(40);
    }
  });
  return {
    replies,
    admitted: () => admitted(replies),
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return replies;
    },
  };
}

/**
 * The failover tests' common course (docs/several-nodes.md): bursts on three nodes with replica
 * acknowledgement; the master holding the organization's slot is SIGKILLed once some of the
 * allowance is admitted; /readyz and the metrics report the degraded topology; once a replica is
 * promoted the operator's supervisor starts the killed server again, which comes back as a
 * replica; service resumes.
 * Then: no request waited past the deadline, every refusal was a 503 that held no slot, and the
 * organization got exactly its allowance of 100 reads, not one more (nor one fewer).
 */
export async function expectExactAcrossFailover(options: {
  nodes: NodeProcess[];
  owner: Auth;
  topology: "cluster" | "sentinel";
  kill(): Promise<void>;
  /** Resolves once a replica serves the killed master's slots. */
  promoted(): Promise<void>;
  restart(): Promise<void>;
  healed(): Promise<void>;
}): Promise<void> {
  const { nodes, owner } = options;
  const burst = startBurst(nodes, owner);
  let during: Reply[];
  try {
    await vi.waitFor(() => expect(burst.admitted()).toBeGreaterThanOrEqual(30), {
      timeout: scaledMs(20_000),
    });
    await options.kill();
    await vi.waitFor(
      async () =>
        expect((await readiness(nodes[0] as NodeProcess)).redis).toMatchObject({
          topology: options.topology,
          state: "degraded",
        }),
      { timeout: scaledMs(20_000), interval: 100 },
    );
    const metrics = await (await fetch(`${(nodes[0] as NodeProcess).baseUrl}/metrics`)).text();
    expect(metrics).toContain(`latchkey_redis_topology{topology="${options.topology}"} 1`);
    expect(metrics).toContain("latchkey_redis_degraded 1");
    // Started again only once its replica has taken over: without persistence, a master back before
    // that would rejoin as the master, empty, and its replica would copy the emptiness.
    await options.promoted();
    await options.restart();
    await options.healed();
    await vi.waitFor(
      async () => {
        for (const n of nodes) expect((await readiness(n)).redis?.state).toBe("ok");
      },
      { timeout: scaledMs(20_000), interval: 200 },
    );
  } finally {
    during = await burst.stop();
  }
  // Service resumed: the allowance left is admitted now, and then exactly nothing more.
  const after = await reads(nodes, owner, 110);
  const total = admitted(during) + admitted(after);
  expect(total).toBe(100);
  expect(after.at(-1)?.status).toBe(429);
  for (const reply of during) {
    expect([200, 429, 503]).toContain(reply.status);
    if (reply.status === 503) expect(reply.body?.code).toBe("rate_limiter_unavailable");
  }
  expect(Math.max(...during.map((r) => r.ms))).toBeLessThan(FAILOVER_DEADLINE_MS + scaledMs(2000));
}
