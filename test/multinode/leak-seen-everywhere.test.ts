import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { expectChangeSeenAtOnce } from "../helpers/change-under-load.js";
import { githubScanner, writeScanningKeys } from "../helpers/github-scanner.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { type NodeProcess, showNodeOutputOnFailure } from "./node-processes.js";
import { startThreeNodes, type ThreeNodes } from "./three-nodes.js";

const REPETITIONS = 3;

/**
 * Three nodes over one PostgreSQL schema and one Redis, record cache on: a secret reported leaked to
 * node 1 (a report signed like GitHub's) is refused by nodes 2 and 3 on the first request that starts
 * after the report was answered, while clients keep them busy with that very key.
 */
describeWithServices(["postgres", "redis"], "a leaked key is refused by every node at once", (services) => {
  const scanner = githubScanner();
  let dir: string;
  let cluster: ThreeNodes | undefined;
  let nodes: NodeProcess[] = [];
  let owner: { authorization: string };
  showNodeOutputOnFailure(() => nodes);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "latchkey-leaks-"));
    cluster = await startThreeNodes(services, "leaks", {
      LATCHKEY_SECRET_SCANNING_KEYS: writeScanningKeys(dir, scanner),
    });
    ({ nodes, owner } = cluster);
  }, scaledMs(60_000));

  afterAll(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test(`reported through node 1, refused by nodes 2 and 3 at once (${REPETITIONS} times under load)`, async () => {
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
          const body = JSON.stringify([
            {
              token: created.api_key,
              type: "latchkey_api_key",
              url: "https://github.com/o/r/blob/main/x",
              source: "content",
            },
          ]);
          const reported = await fetch(`${writer.baseUrl}/v1/secret-scanning/github`, {
            method: "POST",
            headers: scanner.headersFor(body),
            body,
          });
          expect(reported.status).toBe(200);
          expect(((await reported.json()) as Array<{ label: string }>)[0]?.label).toBe("true_positive");
        },
      });
    }
    const record = await fetch(`${readers[0]?.baseUrl}/v1/api-keys?include_disabled=true&count=1`, {
      headers: owner,
    });
    expect(
      ((await record.json()) as { data: Array<{ leaked_at: string | null }> }).data[0]?.leaked_at,
    ).toEqual(expect.any(String));
  }, 120_000);
});
