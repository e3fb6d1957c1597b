import { afterAll, beforeAll, expect, test } from "vitest";
import { describeWithServices } from "../helpers/services.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";
import { type NodeProcess, showNodeOutputOnFailure } from "./node-processes.js";
import { startThreeNodes, type ThreeNodes } from "./three-nodes.js";

const KEYS = 30;

/**
 * Three nodes over one PostgreSQL schema, each running its delivery loop every 20 ms: every attempt is
 * sent by one node only (`FOR UPDATE SKIP LOCKED` and the lease). The receiver refuses the first attempt
 * of each message and accepts the second, so each message must arrive exactly twice and the attempts
 * log must hold exactly two attempts of it: a third would mean two nodes sent the same attempt.
 */
describeWithServices(["postgres", "redis"], "webhooks on three nodes", (services) => {
  let cluster: ThreeNodes | undefined;
  let nodes: NodeProcess[] = [];
  let receiver: WebhookReceiver;
  showNodeOutputOnFailure(() => nodes);

  beforeAll(async () => {
    cluster = await startThreeNodes(services, "webhooks", {
      LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on",
      LATCHKEY_WEBHOOKS_POLL_MS: "20",
      LATCHKEY_WEBHOOKS_TIME_DIVISOR: "1000",
    });
    nodes = cluster.nodes;
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  test("each attempt is sent by one node", async () => {
    if (!cluster) throw new Error("no cluster");
    const { owner } = cluster;
    const headers = { ...owner, "content-type": "application/json" };
    receiver = await startWebhookReceiver();
    const seen = new Set<string>();
    const made = await fetch(`${cluster.nodes[0].baseUrl}/v1/webhook-endpoints`, {
      method: "POST",
      headers,
      body: JSON.stringify({ url: receiver.url, events: ["api_key.created"] }),
    });
    expect(made.status).toBe(201);
    const endpoint = (await made.json()) as { id: string; secret: string };
    receiver.secrets.push(endpoint.secret);
    // First arrival of a message: 503; the next: 204.
    receiver.answerFor = (id: string) => {
      if (seen.has(id)) return 204;
      seen.add(id);
      return 503;
    };

    await Promise.all(
      Array.from({ length: KEYS }, async (_, i) => {
        const node = cluster!.nodes[i % 3]!;
        const created = await fetch(`${node.baseUrl}/v1/api-keys`, {
          method: "POST",
          headers,
          body: JSON.stringify({ name: `key ${i}`, permissions: [] }),
        });
        expect(created.status, await created.clone().text()).toBe(200);
      }),
    );
    await receiver.waitFor((all) => all.length >= KEYS * 2, 30_000);
    // Long enough for any duplicate to show: many polls of every node.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const arrivals = new Map<string, number>();
    for (const delivery of receiver.deliveries)
      arrivals.set(delivery.id, (arrivals.get(delivery.id) ?? 0) + 1);
    expect(arrivals.size).toBe(KEYS);
    expect([...arrivals.values()].every((count) => count === 2)).toBe(true);

    const page = await fetch(
      `${cluster.nodes[1].baseUrl}/v1/webhook-endpoints/${endpoint.id}/attempts?count=100`,
      {
        headers: owner,
      },
    );
    const attempts = ((await page.json()) as { data: { message_id: string; status: string }[] }).data;
    expect(attempts).toHaveLength(KEYS * 2);
    expect(attempts.filter((a) => a.status === "succeeded")).toHaveLength(KEYS);
  });
});
