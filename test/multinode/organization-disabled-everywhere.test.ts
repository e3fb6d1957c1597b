import { afterAll, beforeAll, expect, test } from "vitest";
import { expectChangeSeenAtOnce } from "../helpers/change-under-load.js";
import { latchkey } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { type NodeProcess, showNodeOutputOnFailure } from "./node-processes.js";
import { startThreeNodes, type ThreeNodes } from "./three-nodes.js";

const REPETITIONS = 3;

/**
 * Three nodes over one PostgreSQL and one Redis, with the record cache on: an organization disabled
 * through node 1's provisioning API is refused (403 organization_disabled) by nodes 2 and 3 on the first
 * request that starts after the change answered, while clients keep them busy with its owner key (so
 * they serve it from their caches); enabled again, it is admitted at once (docs/provisioning.md).
 */
describeWithServices(["postgres", "redis"], "a disabled organization on every node at once", (services) => {
  let cluster: ThreeNodes | undefined;
  let nodes: NodeProcess[] = [];
  let token = "";
  showNodeOutputOnFailure(() => nodes);

  beforeAll(async () => {
    cluster = await startThreeNodes(services, "org-disabled");
    nodes = cluster.nodes;
    const created = await latchkey(
      ["service-token", "create", "--name", "platform", "--scope", "authorize,provision", "--json"],
      cluster.database,
    );
    token = (JSON.parse(created.stdout) as { token: string }).token;
  }, scaledMs(60_000));

  afterAll(async () => {
    await cluster?.stop();
  });

  async function setDisabled(writer: NodeProcess, disabled: boolean) {
    const response = await fetch(`${writer.baseUrl}/v1/admin/organizations/${cluster?.orgId}`, {
      method: "PATCH",
      headers: { "x-latchkey-service-token": token, "content-type": "application/json" },
      body: JSON.stringify({ disabled }),
    });
    expect(response.status).toBe(200);
  }

  test(`disabled and enabled through node 1, seen by nodes 2 and 3 at once (${REPETITIONS} times under load)`, async () => {
    const [writer, ...readers] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    const owner = cluster?.owner ?? { authorization: "" };
    const request = (base: string) => fetch(`${base}/v1/api-keys`, { headers: owner });
    for (let i = 0; i < REPETITIONS; i++) {
      await expectChangeSeenAtOnce({
        readers: readers.map((n) => n.baseUrl),
        request,
        before: 200,
        after: 403,
        change: () => setDisabled(writer, true),
      });
      const refused = await request(readers[0].baseUrl);
      expect(await refused.json()).toMatchObject({ code: "organization_disabled" });
      const decision = await fetch(`${readers[1].baseUrl}/v1/authorize`, {
        method: "POST",
        headers: { "x-latchkey-service-token": token, "content-type": "application/json" },
        body: JSON.stringify({
          authorization: owner.authorization,
          permission: "images:create",
          group: "api-key:read",
        }),
      });
      expect(await decision.json()).toMatchObject({ allowed: false, status: 403 });
      await expectChangeSeenAtOnce({
        readers: readers.map((n) => n.baseUrl),
        request,
        before: 403,
        after: 200,
        change: () => setDisabled(writer, false),
      });
    }
  }, 180_000);
});
