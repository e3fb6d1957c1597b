import { describe, expect, it } from "vitest";
import { buildTestApp, fakeClock, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

/** Fast enough for tests: the schedule divided by 1,000 (5 s -> 5 ms), looked at every 20 ms. */
const FAST = {
  LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on",
  LATCHKEY_WEBHOOKS_POLL_MS: "20",
  LATCHKEY_WEBHOOKS_TIME_DIVISOR: "1000",
};

async function subscribed(
  testApp: TestApp,
  owner: TestKey,
  receiver: WebhookReceiver,
  events: string[] = ["api_key.created", "api_key.updated", "api_key.disabled", "api_key.rolled"],
) {
  const created = await testApp.app.inject({
    method: "POST",
    url: "/v1/webhook-endpoints",
    headers: owner.headers,
    payload: { url: receiver.url, events, description: "tests" },
  });
  expect(created.statusCode, created.body).toBe(201);
  const endpoint = created.json<{ id: string; secret: string }>();
  receiver.secrets.push(endpoint.secret);
  return endpoint;
}

async function createKey(testApp: TestApp, owner: TestKey, name = "worker") {
  const response = await testApp.app.inject({
    method: "POST",
    url: "/v1/api-keys",
    headers: owner.headers,
    payload: { name, permissions: ["images:create"] },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ id: string; api_key: string }>();
}

describe("webhooks: endpoints and delivery (Standard Webhooks, verified by the receiver)", () => {
  it("sends api_key.created, signed, verifiable, without the key's secret; the endpoint's secret is shown once", async () => {
    const testApp = await buildTestApp({ env: FAST });
    const owner = await testApp.createOrganization();
    const receiver = await startWebhookReceiver();
    const endpoint = await subscribed(testApp, owner, receiver);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const key = await createKey(testApp, owner);
    await receiver.waitFor((all) => all.length === 1);
    const [delivery] = receiver.deliveries;
    expect(delivery?.payload.type).toBe("api_key.created");
    expect(delivery?.payload.data).toMatchObject({ organization_id: owner.orgId, key_id: key.id });
    expect(delivery?.id).toMatch(/^msg_/);
    expect(JSON.stringify(delivery?.payload)).not.toContain(key.api_key);
    expect(JSON.stringify(delivery?.payload)).not.toMatch(/secret|hash/i);

    const read = await testApp.app.inject({
      url: `/v1/webhook-endpoints/${endpoint.id}`,
      headers: owner.headers,
    });
    expect(read.json()).not.toHaveProperty("secret");
    const list = await testApp.app.inject({ url: "/v1/webhook-endpoints", headers: owner.headers });
    expect(list.body).not.toContain(endpoint.secret);
    expect(list.json<{ data: unknown[] }>().data).toHaveLength(1);

    // The attempt is counted and timed; the queue is empty again.
    await expect
      .poll(async () => (await testApp.app.inject({ url: "/metrics" })).body)
      .toContain('latchkey_webhook_deliveries_total{outcome="delivered"} 1');
    const metrics = (await testApp.app.inject({ url: "/metrics" })).body;
    expect(metrics).toMatch(/^latchkey_webhook_delivery_seconds_count 1$/m);
    expect(metrics).toMatch(/^latchkey_webhook_queue_depth 0$/m);
  });

  it("retries a failing receiver on the schedule, keeps every attempt, and delivers once it answers 2xx", async () => {
    const testApp = await buildTestApp({ env: FAST });
    const owner = await testApp.createOrganization();
    const receiver = await startWebhookReceiver();
    receiver.answer = { status: 503, body: "down for maintenance" };
    const endpoint = await subscribed(testApp, owner, receiver);
    await createKey(testApp, owner);
    await receiver.waitFor((all) => all.length >= 2);
    receiver.answer = 200;
    await receiver.waitFor((all) => all.length >= 3 && all.at(-1)?.receivedAt !== undefined);
    const attempts = async () =>
      (
        await testApp.app.inject({
          url: `/v1/webhook-endpoints/${endpoint.id}/attempts`,
          headers: owner.headers,
        })
      ).json<{
        data: { status: string; response_status: number; response_excerpt: string; message_id: string }[];
      }>().data;
    await expect.poll(async () => (await attempts()).some((a) => a.status === "succeeded")).toBe(true);
    const log = await attempts();
    expect(log.filter((a) => a.status === "failed").length).toBeGreaterThanOrEqual(2);
    expect(log.find((a) => a.status === "failed")).toMatchObject({
      response_status: 503,
      response_excerpt: "down for maintenance",
    });
    // Every attempt of the message carries the same webhook-id, as the receiver's dedupe key.
    expect(new Set(receiver.deliveries.map((d) => d.id)).size).toBe(1);
    expect(new Set(log.map((a) => a.message_id))).toEqual(new Set([receiver.deliveries[0]?.id]));
    // Delivered: nothing more is sent.
    const count = receiver.deliveries.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.deliveries.length).toBe(count);
  });

  it("test and resend: webhook.test reaches the endpoint; a resend keeps the message id", async () => {
    const testApp = await buildTestApp({ env: FAST });
    const owner = await testApp.createOrganization();
    const receiver = await startWebhookReceiver();
    const endpoint = await subscribed(testApp, owner, receiver, ["api_key.created"]);
    const test = await testApp.app.inject({
      method: "POST",
      url: `/v1/webhook-endpoints/${endpoint.id}/test`,
      headers: owner.headers,
    });
    expect(test.statusCode, test.body).toBe(202);
    const message = test.json<{ id: string; type: string }>();
    expect(message.type).toBe("webhook.test");
    await receiver.waitFor((all) =>
      all.some((d) => d.id === message.id && d.payload.type === "webhook.test"),
    );

    const resend = await testApp.app.inject({
      method: "POST",
      url: `/v1/webhook-messages/${message.id}/resend`,
      headers: owner.headers,
    });
    expect(resend.statusCode, resend.body).toBe(202);
    await receiver.waitFor((all) => all.filter((d) => d.id === message.id).length === 2);

    const other = await testApp.createOrganization("other");
    const foreign = await testApp.app.inject({
      method: "POST",
      url: `/v1/webhook-messages/${message.id}/resend`,
      headers: other.headers,
    });
    expect(foreign.statusCode).toBe(404);
  });

  it("rotation: both secrets sign for 24 hours, so a receiver with either one verifies", async () => {
    const clock = fakeClock(Date.now());
    const testApp = await buildTestApp({ env: FAST, clock });
    const owner = await testApp.createOrganization();
    const oldReceiver = await startWebhookReceiver();
    const endpoint = await subscribed(testApp, owner, oldReceiver);
    const rotated = await testApp.app.inject({
      method: "POST",
      url: `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
      headers: owner.headers,
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { secret, previous_secret_expires_at } = rotated.json<{
      secret: string;
      previous_secret_expires_at: string;
    }>();
    expect(secret).not.toBe(endpoint.secret);
    expect(Date.parse(previous_secret_expires_at) - clock.now()).toBe(24 * 3600 * 1000);

    await createKey(testApp, owner);
    await oldReceiver.waitFor((all) => all.length === 1);
    expect(oldReceiver.deliveries[0]?.signature.split(" ")).toHaveLength(2);
    // The same delivery verifies with the new secret alone.
    oldReceiver.secrets = [secret];
    const resend = await testApp.app.inject({
      method: "POST",
      url: `/v1/webhook-messages/${oldReceiver.deliveries[0]?.id}/resend`,
      headers: owner.headers,
    });
    expect(resend.statusCode).toBe(202);
    await oldReceiver.waitFor((all) => all.length === 2);
    expect(oldReceiver.rejected).toHaveLength(0);

    // Past the overlap only the new secret signs: a receiver still on the old one refuses.
    clock.advance(24 * 3600 * 1000 + 1000);
    oldReceiver.secrets = [endpoint.secret];
    await testApp.app.inject({
      method: "POST",
      url: `/v1/webhook-messages/${oldReceiver.deliveries[0]?.id}/resend`,
      headers: owner.headers,
    });
    await expect.poll(() => oldReceiver.rejected.length).toBeGreaterThan(0);
  });

  it("a receiver's huge answer is kept as its first 1,000 characters", async () => {
    const testApp = await buildTestApp({ env: FAST });
    const owner = await testApp.createOrganization();
    const receiver = await startWebhookReceiver();
    receiver.answer = { status: 200, body: "x".repeat(2_000_000) };
    const endpoint = await subscribed(testApp, owner, receiver);
    await createKey(testApp, owner);
    await receiver.waitFor((all) => all.length === 1);
    await expect
      .poll(async () => {
        const page = await testApp.app.inject({
          url: `/v1/webhook-endpoints/${endpoint.id}/attempts`,
          headers: owner.headers,
        });
        return page.json<{ data: { response_excerpt: string }[] }>().data[0]?.response_excerpt.length;
      })
      .toBe(1000);
  });
});
