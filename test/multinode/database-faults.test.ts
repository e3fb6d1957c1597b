import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { systemClock } from "../../src/domain/clock.js";
import { createSecretHasher } from "../../src/domain/credentials.js";
import { RATE_LIMIT_GROUPS } from "../../src/domain/rate-limit-groups.js";
import { createOrganizationWithOwner } from "../../src/services/organizations.js";
import { openStores } from "../../src/store/open-database.js";
import { basicAuth } from "../helpers/build-test-app.js";
import { type OwnPostgres, startOwnPostgres } from "../helpers/own-postgres.js";
import { describeWithServices } from "../helpers/services.js";
import { type NodeProcess, showNodeOutputOnFailure, startNode } from "./node-processes.js";

/**
 * docs/several-nodes.md "When PostgreSQL goes away": two real nodes over a PostgreSQL of the suite's
 * own, whose backends are terminated and which is stopped and started again while requests flow. No
 * node may exit, no answer may be a 500, and every acknowledged create must survive.
 *
 * `LATCHKEY_FAULT_SECONDS` makes each phase last that long (bench/database-restart.mjs runs it so and
 * reports the figures); CI runs each phase for a few hundred requests.
 */
const PHASE_MS = Number(process.env.LATCHKEY_FAULT_SECONDS ?? 0) * 1000;

interface Answer {
  /** performance.now() when the answer arrived. */
  at: number;
  kind: "read" | "create";
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  /** The created key's id, on a create answered 200. */
  id: string | undefined;
}

interface Load {
  answers: Answer[];
  /** Resolves once `count` more answers arrived (and, for the long variant, PHASE_MS passed). */
  more(count: number): Promise<void>;
  stop(): Promise<void>;
}

const PEPPER = "pepper-of-the-database-fault-suite";

/** Reads of one key and creates (one in four, each with an Idempotency-Key), round-robin over the nodes. */
function startLoad(nodes: NodeProcess[], owner: { authorization: string }, keyId: string, workers = 8): Load {
  const answers: Answer[] = [];
  let running = true;
  let sent = 0;
  async function worker() {
    while (running) {
      const i = sent++;
      const node = nodes[i % nodes.length] as NodeProcess;
      const create = i % 4 === 0;
      let answer: Answer;
      try {
        const response = await fetch(
          create ? `${node.baseUrl}/v1/api-keys` : `${node.baseUrl}/v1/api-keys/${keyId}`,
          create
            ? {
                method: "POST",
                headers: { ...owner, "content-type": "application/json", "idempotency-key": randomUUID() },
                body: JSON.stringify({ name: `load ${i}`, permissions: ["images:read"] }),
                signal: AbortSignal.timeout(15_000),
              }
            : { headers: owner, signal: AbortSignal.timeout(15_000) },
        );
        const body = (await response.json()) as { code?: string; id?: string };
        answer = {
          at: performance.now(),
          kind: create ? "create" : "read",
          status: response.status,
          code: body.code,
          retryAfter: response.headers.get("retry-after"),
          id: create && response.status === 200 ? body.id : undefined,
        };
      } catch (error) {
        // No answer at all (a reset connection, a hang): status 0, which the tests refuse.
        answer = {
          at: performance.now(),
          kind: create ? "create" : "read",
          status: 0,
          code: (error as Error).message,
          retryAfter: null,
          id: undefined,
        };
      }
      answers.push(answer);
    }
  }
  const done = Promise.all(Array.from({ length: workers }, worker));
  return {
    answers,
    async more(count) {
      const target = answers.length + count;
      const until = performance.now() + PHASE_MS;
      await vi.waitFor(() => expect(answers.length >= target && performance.now() >= until).toBe(true), {
        timeout: 30_000 + PHASE_MS,
        interval: 20,
      });
    },
    async stop() {
      running = false;
      await done;
    },
  };
}

function byStatus(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, code } of answers) {
    const label = status === 200 ? "200" : `${status} ${code ?? ""}`.trim();
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

/** Every refusal is the documented 503 of a database that is away, with Retry-After: 1. */
function expectOnly200Or503(answers: Answer[]): void {
  const wrong = answers.filter(
    (a) =>
      a.status !== 200 && !(a.status === 503 && a.code === "database_unavailable" && a.retryAfter === "1"),
  );
  expect(wrong, JSON.stringify(byStatus(answers))).toEqual([]);
}

describeWithServices(["postgresServer"], "two nodes while PostgreSQL goes away", () => {
  let database: OwnPostgres;
  const nodes: NodeProcess[] = [];
  let owner: { authorization: string };
  let ownerKeyId: string;

  beforeAll(async () => {
    database = await startOwnPostgres();
    const stores = await openStores(database.url);
    try {
      const created = await createOrganizationWithOwner(
        { store: stores.keys, hasher: createSecretHasher(PEPPER), clock: systemClock },
        "faults",
      );
      owner = basicAuth(created.owner.apiId, created.secret);
      ownerKeyId = created.owner.id;
      // The load is the point, not the management rate limits or the key quota.
      await stores.keys.changeLimits(created.organization.id, {
        maxKeys: 1_000_000,
        quotas: Object.fromEntries(RATE_LIMIT_GROUPS.map((group) => [group, 1_000_000])),
      });
    } finally {
      await stores.close();
    }
    const env = {
      LATCHKEY_DATABASE_URL: database.url,
      LATCHKEY_BOOTSTRAP: "off",
      LATCHKEY_SECRET_PEPPER: PEPPER,
    };
    // One after the other: on a busy machine two starting at once may miss the health deadline.
    for (let i = 0; i < 2; i++) nodes.push(await startNode(env, 60_000));
  }, 180_000);

  showNodeOutputOnFailure(() => nodes);

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await database?.destroy();
  });

  const readOnEachNode = () =>
    Promise.all(nodes.map((node) => fetch(`${node.baseUrl}/v1/api-keys/${ownerKeyId}`, { headers: owner })));

  test("pg_terminate_backend on every connection under load: no node exits, no 500, the next requests succeed", async () => {
    const load = startLoad(nodes, owner, ownerKeyId);
    try {
      await load.more(50);
      expect(await database.terminateBackends()).toBeGreaterThan(0);
      await load.more(100);
      expect(await database.terminateBackends()).toBeGreaterThan(0);
      await load.more(100);
    } finally {
      await load.stop();
    }
    console.log("answers while backends were terminated:", byStatus(load.answers));
    expect(nodes.map((node) => node.exited())).toEqual([null, null]);
    expectOnly200Or503(load.answers);
    // The connections were replaced as they were needed: the first request afterwards succeeds.
    expect((await readOnEachNode()).map((response) => response.status)).toEqual([200, 200]);
    expect(nodes.map((node) => node.output()).join("\n")).not.toMatch(/Unhandled|uncaught/i);
  }, 120_000);

  test("PostgreSQL stopped under load: 503 database_unavailable and /readyz 503; back within 2 s of its return, no acknowledged create lost", async () => {
    const load = startLoad(nodes, owner, ownerKeyId);
    let stoppedAt = 0;
    let startedAt = 0;
    const backWithin: number[] = [];
    try {
      await load.more(50);
      await database.stop("fast");
      stoppedAt = performance.now();
      await load.more(50);
      const ready = await Promise.all(nodes.map((node) => fetch(`${node.baseUrl}/readyz`)));
      expect(ready.map((response) => response.status)).toEqual([503, 503]);
      await database.start();
      startedAt = performance.now();
      // Each node answers a request of its own again: how long after PostgreSQL accepted connections.
      await Promise.all(
        nodes.map(async (node) => {
          await vi.waitFor(
            async () => {
              const response = await fetch(`${node.baseUrl}/v1/api-keys/${ownerKeyId}`, { headers: owner });
              expect(response.status).toBe(200);
            },
            { timeout: 10_000, interval: 20 },
          );
          backWithin.push(performance.now() - startedAt);
        }),
      );
      await load.more(100);
    } finally {
      await load.stop();
    }
    const during = load.answers.filter((a) => a.at > stoppedAt && a.at < startedAt);
    console.log(
      "answers before the stop:",
      byStatus(load.answers.filter((a) => a.at <= stoppedAt)),
      "while stopped:",
      byStatus(during),
      "after the start:",
      byStatus(load.answers.filter((a) => a.at >= startedAt)),
      "each node serving again after (ms):",
      backWithin.map(Math.round),
    );
    expect(nodes.map((node) => node.exited())).toEqual([null, null]);
    expectOnly200Or503(load.answers);
    expect(during.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    expect(Math.max(...backWithin)).toBeLessThan(2000);
    expect(
      (await Promise.all(nodes.map((node) => fetch(`${node.baseUrl}/readyz`)))).map((r) => r.status),
    ).toEqual([200, 200]);
    // Every create answered 200 is there.
    const acknowledged = load.answers.flatMap((a) => (a.id ? [a.id] : []));
    expect(acknowledged.length).toBeGreaterThan(0);
    for (let i = 0; i < acknowledged.length; i += 20) {
      const reads = await Promise.all(
        acknowledged
          .slice(i, i + 20)
          .map((id) => fetch(`${nodes[0]!.baseUrl}/v1/api-keys/${id}`, { headers: owner })),
      );
      expect(reads.map((response) => response.status)).toEqual(reads.map(() => 200));
    }
  }, 180_000);
});
