import { expect, it } from "vitest";
import { join } from "node:path";
import { basicAuth } from "../helpers/build-test-app.js";
import { freePort } from "../helpers/free-port.js";
import { cliOrganization, startServer, tempDir } from "../helpers/processes.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

/**
 * The outbox's promise, with real processes: a change the server acknowledged produces its event even
 * when the process is killed (SIGKILL) right after the acknowledgement, before any delivery: the
 * restarted node sends it. The first node never looks for deliveries (a poll of 60 s), so every event
 * must come from the outbox the change's transaction wrote.
 */
it("an acknowledged change always produces its event, across a SIGKILL right after the acknowledgement", async () => {
  const database = {
    LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
    LATCHKEY_BOOTSTRAP: "off",
  };
  const { owner } = await cliOrganization(database);
  const headers = { ...basicAuth(owner.apiId, owner.secret), "content-type": "application/json" };
  const receiver = await startWebhookReceiver();
  const env = { ...database, LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on" };

  const first = await startServer({ ...env, LATCHKEY_WEBHOOKS_POLL_MS: "60000" }, await freePort());
  const endpoint = await fetch(`${first.baseUrl}/v1/webhook-endpoints`, {
    method: "POST",
    headers,
    body: JSON.stringify({ url: receiver.url, events: ["api_key.created", "api_key.disabled"] }),
  });
  expect(endpoint.status).toBe(201);
  receiver.secrets.push(((await endpoint.json()) as { secret: string }).secret);

  const acknowledged: string[] = [];
  for (let i = 0; i < 5; i++) {
    const created = await fetch(`${first.baseUrl}/v1/api-keys`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: `key ${i}`, permissions: ["images:create"] }),
    });
    expect(created.status).toBe(200);
    acknowledged.push(((await created.json()) as { id: string }).id);
  }
  const disabled = await fetch(`${first.baseUrl}/v1/api-keys/${acknowledged[0]}`, {
    method: "DELETE",
    headers: basicAuth(owner.apiId, owner.secret),
  });
  expect(disabled.status).toBe(204);
  first.child.kill("SIGKILL");
  await first.exited;
  expect(receiver.deliveries).toHaveLength(0);

  await startServer({ ...env, LATCHKEY_WEBHOOKS_POLL_MS: "50" }, await freePort());
  await receiver.waitFor((all) => all.length >= 6);
  const created = receiver.deliveries.filter((d) => d.payload.type === "api_key.created");
  expect(created.map((d) => d.payload.data.key_id).sort()).toEqual([...acknowledged].sort());
  expect(
    receiver.deliveries.filter((d) => d.payload.type === "api_key.disabled")[0]?.payload.data.key_id,
  ).toBe(acknowledged[0]);
});

/**
 * A receiver that is down for a while gets every event once it is back, on the retry schedule (divided
 * by 1,000 here: 5 ms, 300 ms, 1.8 s, 7.2 s, ...): the attempts log shows the refused attempts, spaced
 * as the schedule says, then the delivery.
 */
it("a receiver down for a while gets every event when it comes back, on the retry schedule", async () => {
  const database = {
    LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
    LATCHKEY_BOOTSTRAP: "off",
  };
  const { owner } = await cliOrganization(database);
  const headers = { ...basicAuth(owner.apiId, owner.secret), "content-type": "application/json" };
  const receiver = await startWebhookReceiver();
  const server = await startServer(
    {
      ...database,
      LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on",
      LATCHKEY_WEBHOOKS_POLL_MS: "20",
      LATCHKEY_WEBHOOKS_TIME_DIVISOR: "1000",
    },
    await freePort(),
  );
  const endpoint = (await (
    await fetch(`${server.baseUrl}/v1/webhook-endpoints`, {
      method: "POST",
      headers,
      body: JSON.stringify({ url: receiver.url, events: ["api_key.created"] }),
    })
  ).json()) as { id: string; secret: string };
  receiver.secrets.push(endpoint.secret);
  await receiver.stop();

  const keys: string[] = [];
  for (let i = 0; i < 5; i++) {
    const created = await fetch(`${server.baseUrl}/v1/api-keys`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: `key ${i}`, permissions: [] }),
    });
    keys.push(((await created.json()) as { id: string }).id);
  }
  type Attempt = { message_id: string; status: string; at: string };
  const attempts = async () =>
    (
      (await (
        await fetch(`${server.baseUrl}/v1/webhook-endpoints/${endpoint.id}/attempts?count=100`, { headers })
      ).json()) as { data: Attempt[] }
    ).data;
  // Down long enough for three attempts of each (the first, then 5 ms and 300 ms later).
  await expect.poll(async () => (await attempts()).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(15);
  await receiver.start();
  await receiver.waitFor((all) => new Set(all.map((d) => d.payload.data.key_id)).size === 5, 30_000);
  expect([...new Set(receiver.deliveries.map((d) => d.payload.data.key_id))].sort()).toEqual(
    [...keys].sort(),
  );

  const log = await attempts();
  for (const messageId of new Set(log.map((a) => a.message_id))) {
    const times = log
      .filter((a) => a.message_id === messageId)
      .map((a) => Date.parse(a.at))
      .sort((a, b) => a - b);
    const gaps = times.slice(1).map((t, i) => t - (times[i] ?? t));
    // 5 ms, 300 ms, 1.8 s after the failures before: each gap at least its step of the schedule.
    [5, 300, 1800].slice(0, gaps.length).forEach((step, i) => expect(gaps[i]).toBeGreaterThanOrEqual(step));
  }
  expect(log.filter((a) => a.status === "succeeded")).toHaveLength(5);
});
