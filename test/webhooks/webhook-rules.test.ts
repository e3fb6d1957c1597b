import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { adminApp } from "../helpers/admin.js";
import { buildTestApp, fakeClock, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";
import { sendWebhook } from "../../src/webhooks/sender.js";

const FAST = {
  LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on",
  LATCHKEY_WEBHOOKS_POLL_MS: "20",
  LATCHKEY_WEBHOOKS_TIME_DIVISOR: "1000",
};

const create = (testApp: TestApp, owner: TestKey, payload: Record<string, unknown>) =>
  testApp.app.inject({ method: "POST", url: "/v1/webhook-endpoints", headers: owner.headers, payload });

const endpointCount = async (testApp: TestApp, owner: TestKey) =>
  (await testApp.app.inject({ url: "/v1/webhook-endpoints?count=100", headers: owner.headers })).json<{
    data: unknown[];
  }>().data.length;

describe("webhook URLs: https and public addresses only, unless LATCHKEY_WEBHOOKS_ALLOW_PRIVATE=on", () => {
  it.each([
    ["http://93.184.215.14/hooks", "must use https"],
    ["https://127.0.0.1/hooks", "127.0.0.1"],
    ["https://localhost:8443/hooks", "loopback"],
    ["https://10.1.2.3/hooks", "10.1.2.3"],
    ["https://192.168.0.10/hooks", "192.168.0.10"],
    ["https://169.254.169.254/latest/meta-data", "169.254.169.254"],
    ["https://100.100.100.200/", "100.100.100.200"],
    ["https://[::1]/hooks", "::1"],
    ["https://[fd00:ec2::254]/", "fd00:ec2::254"],
    ["https://[::ffff:127.0.0.1]/hooks", "::ffff:7f00:1"],
    ["https://user:pass@93.184.215.14/", "credentials"],
  ])("%s: 400 webhook_url_not_allowed, nothing stored", async (url, mentions) => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const response = await create(testApp, owner, { url, events: ["api_key.created"] });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: "webhook_url_not_allowed" });
    expect(response.json<{ message: string }>().message).toContain(
      mentions === "loopback" ? "127.0.0.1" : mentions,
    );
    expect(await endpointCount(testApp, owner)).toBe(0);
  });

  it("a public https address is accepted", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const response = await create(testApp, owner, {
      url: "https://93.184.215.14/hooks",
      events: ["api_key.created"],
    });
    expect(response.statusCode, response.body).toBe(201);
  });

  it("a URL over 2,000 characters, an unknown event type, an empty list: 400 with validation_errors", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const long = await create(testApp, owner, {
      url: `https://93.184.215.14/${"a".repeat(2000)}`,
      events: ["api_key.created"],
    });
    expect(long.statusCode).toBe(400);
    expect(long.json<{ validation_errors: { path: string }[] }>().validation_errors[0]?.path).toBe("/url");
    const unknown = await create(testApp, owner, {
      url: "https://93.184.215.14/",
      events: ["api_key.exploded"],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json<{ validation_errors: { path: string }[] }>().validation_errors[0]?.path).toBe(
      "/events/0",
    );
    const none = await create(testApp, owner, { url: "https://93.184.215.14/", events: [] });
    expect(none.statusCode).toBe(400);
    const platformOnly = await create(testApp, owner, {
      url: "https://93.184.215.14/",
      events: ["organization.created"],
    });
    expect(platformOnly.statusCode).toBe(400);
    expect(platformOnly.json<{ validation_errors: { path: string }[] }>().validation_errors[0]?.path).toBe(
      "/events/0",
    );
    expect(await endpointCount(testApp, owner)).toBe(0);
  });

  it("each delivery checks the address again as it connects: refused without the setting, sent with it", async () => {
    const receiver = await startWebhookReceiver();
    receiver.secrets.push("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1Xd7ZkG2Jk0=");
    const url = `http://localhost:${receiver.port}/hooks`;
    const request = { url, headers: {}, body: "{}", timeoutMs: 15_000 };
    const refused = await sendWebhook({ ...request, allowPrivate: false });
    expect(refused).toMatchObject({ ok: false, status: null });
    expect(refused.excerpt).toMatch(/resolves to (127\.0\.0\.1|::1)/);
    const literal = await sendWebhook({
      ...request,
      url: `http://127.0.0.1:${receiver.port}/`,
      allowPrivate: false,
    });
    expect(literal.ok).toBe(false);
    expect(receiver.rejected).toHaveLength(0);
    const allowed = await sendWebhook({ ...request, allowPrivate: true });
    expect(allowed.status).toBe(401);
    expect(receiver.rejected).toHaveLength(1);
  });

  it("an endpoint stored while private addresses were allowed is not sent to by a node without the setting", async () => {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-webhooks-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const database = { LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "db.sqlite")}` };
    const receiver = await startWebhookReceiver();
    const first = await buildTestApp({
      env: { ...database, LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on", LATCHKEY_WEBHOOKS_POLL_MS: "60000" },
    });
    const owner = await first.createOrganization();
    const endpoint = (await create(first, owner, { url: receiver.url, events: ["api_key.created"] })).json<{
      id: string;
      secret: string;
    }>();
    receiver.secrets.push(endpoint.secret);
    await first.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: owner.headers,
      payload: { name: "k", permissions: [] },
    });
    await first.app.close();

    const second = await buildTestApp({ env: { ...database, LATCHKEY_WEBHOOKS_POLL_MS: "20" } });
    await expect
      .poll(async () => {
        const page = await second.app.inject({
          url: `/v1/webhook-endpoints/${endpoint.id}/attempts`,
          headers: owner.headers,
        });
        return page.json<{ data: { response_excerpt: string }[] }>().data[0]?.response_excerpt;
      })
      .toMatch(/127\.0\.0\.1, a private, loopback/);
    expect(receiver.deliveries).toHaveLength(0);
  });
});

describe("webhook endpoints: quota, permissions, the platform's endpoints", () => {
  it("a 21st endpoint is 409 webhook_endpoint_quota_exceeded and nothing is stored", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const roomy = { policies: [{ quota: 100, windowSeconds: 60 }], per: "organization" } as const;
    await testApp.services.limitOverrides.set(owner.orgId, "webhook:write", roomy, "operator");
    for (let i = 0; i < 20; i++) {
      const made = await create(testApp, owner, {
        url: `https://93.184.215.14/${i}`,
        events: ["api_key.created"],
      });
      expect(made.statusCode).toBe(201);
    }
    const over = await create(testApp, owner, {
      url: "https://93.184.215.14/21",
      events: ["api_key.created"],
    });
    expect(over.statusCode).toBe(409);
    expect(over.json()).toMatchObject({ code: "webhook_endpoint_quota_exceeded" });
    expect(await endpointCount(testApp, owner)).toBe(20);
  });

  it("needs webhooks:read and webhooks:create_update, and counts against webhook:read|write", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const made = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: owner.headers,
      payload: { name: "reader", permissions: ["webhooks:read"] },
    });
    const reader = made.json<{ api_id: string; api_key: string }>();
    const headers = {
      authorization: `Basic ${Buffer.from(`${reader.api_id}:${reader.api_key}`).toString("base64")}`,
    };
    const list = await testApp.app.inject({ url: "/v1/webhook-endpoints", headers });
    expect(list.statusCode).toBe(200);
    expect(list.headers["ratelimit-policy"]).toContain('"webhook:read"');
    const write = await testApp.app.inject({
      method: "POST",
      url: "/v1/webhook-endpoints",
      headers,
      payload: { url: "https://93.184.215.14/", events: ["api_key.created"] },
    });
    expect(write.statusCode).toBe(403);
    expect(write.json<{ message: string }>().message).toContain("webhooks:create_update");
  });

  it("the platform's endpoint gets organization events and every organization's key events; provision scope required", async () => {
    const { testApp, admin } = await adminApp({ env: { ...FAST } });
    const receiver = await startWebhookReceiver();
    const refused = await admin(
      "POST",
      "/v1/admin/webhook-endpoints",
      { url: receiver.url, events: ["organization.created"] },
      { token: null },
    );
    expect(refused.statusCode).toBe(401);
    const made = await admin("POST", "/v1/admin/webhook-endpoints", {
      url: receiver.url,
      events: ["organization.created", "organization.disabled", "api_key.created"],
    });
    expect(made.statusCode, made.body).toBe(201);
    receiver.secrets.push(made.json<{ secret: string }>().secret);
    const org = await admin("POST", "/v1/admin/organizations", { name: "Acme", external_id: "cus_1" });
    expect(org.statusCode, org.body).toBe(201);
    const orgId = org.json<{ organization: { id: string } }>().organization.id;
    await admin("PATCH", `/v1/admin/organizations/${orgId}`, { disabled: true });
    await receiver.waitFor((all) => all.some((d) => d.payload.type === "organization.disabled"));
    const types = receiver.deliveries.map((d) => d.payload.type).sort();
    expect(types).toEqual(["api_key.created", "organization.created", "organization.disabled"]);
    expect(
      receiver.deliveries.find((d) => d.payload.type === "organization.created")?.payload.data,
    ).toMatchObject({
      organization_id: orgId,
      organization: { external_id: "cus_1" },
    });
    // Not an organization's: its keys do not see the platform's endpoints.
    const other = await testApp.createOrganization("other");
    const list = await testApp.app.inject({ url: "/v1/webhook-endpoints", headers: other.headers });
    expect(list.json<{ data: unknown[] }>().data).toHaveLength(0);
  });
});

describe("alerts and time: thresholds, exhausted windows, failing endpoints, retention", () => {
  it("credits.threshold_reached once at 80% and once at 100%; rate_limit.exhausted once per group and window", async () => {
    const testApp = await buildTestApp({ env: FAST });
    const owner = await testApp.createOrganization();
    const receiver = await startWebhookReceiver();
    const made = await create(testApp, owner, {
      url: receiver.url,
      events: ["credits.threshold_reached", "rate_limit.exhausted"],
    });
    receiver.secrets.push(made.json<{ secret: string }>().secret);
    await testApp.services.plans.change(owner.orgId, { imageCredits: 10 });
    const render = (credits: number) =>
      testApp.services.access.decide({
        authorization: owner.headers.authorization,
        permission: "images:create",
        credits,
      });
    expect((await render(7)).allowed).toBe(true);
    expect((await render(1)).allowed).toBe(true); // 8 of 10: 80%
    expect((await render(1)).allowed).toBe(true);
    expect((await render(1)).allowed).toBe(true); // 10 of 10: 100%
    expect((await render(1)).allowed).toBe(false);
    await testApp.services.limitOverrides.set(
      owner.orgId,
      "api-key:read",
      { policies: [{ quota: 1, windowSeconds: 60 }], per: "organization" },
      "operator",
    );
    for (let i = 0; i < 4; i++) await testApp.app.inject({ url: "/v1/api-keys", headers: owner.headers });
    await receiver.waitFor((all) => all.length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const thresholds = receiver.deliveries
      .filter((d) => d.payload.type === "credits.threshold_reached")
      .map((d) => d.payload.data.threshold);
    expect(thresholds.sort()).toEqual([100, 80]);
    const exhausted = receiver.deliveries.filter((d) => d.payload.type === "rate_limit.exhausted");
    expect(exhausted).toHaveLength(1);
    expect(exhausted[0]?.payload.data).toMatchObject({
      organization_id: owner.orgId,
      group: "api-key:read",
      quota: 1,
    });
  });

  it("credits.threshold_reached at the plan's own thresholds only", async () => {
    const testApp = await buildTestApp({ env: FAST });
    const owner = await testApp.createOrganization();
    const receiver = await startWebhookReceiver();
    const made = await create(testApp, owner, { url: receiver.url, events: ["credits.threshold_reached"] });
    receiver.secrets.push(made.json<{ secret: string }>().secret);
    await testApp.services.plans.change(owner.orgId, { imageCredits: 10, creditThresholds: [30, 60] });
    const render = (credits: number) =>
      testApp.services.access.decide({
        authorization: owner.headers.authorization,
        permission: "images:create",
        credits,
      });
    expect((await render(3)).allowed).toBe(true); // 30%
    expect((await render(7)).allowed).toBe(true); // 60% and 100%, which this plan does not name
    await receiver.waitFor((all) => all.length >= 2);
    const thresholds = receiver.deliveries.map((d) => d.payload.data.threshold);
    expect(thresholds.sort()).toEqual([30, 60]);
    expect(receiver.deliveries.find((d) => d.payload.data.threshold === 60)?.payload.data).toMatchObject({
      organization_id: owner.orgId,
      used: 10,
      allowance: 10,
    });
  });

  it("an endpoint failing for five days is disabled, the platform is told; attempts are forgotten after 30 days", async () => {
    const clock = fakeClock(Date.now());
    const { testApp, admin } = await adminApp({
      // The loop is left idle: the test sends each due attempt itself, as the clock moves.
      env: { LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on", LATCHKEY_WEBHOOKS_POLL_MS: "60000" },
      clock,
    });
    const platform = await startWebhookReceiver();
    const made = await admin("POST", "/v1/admin/webhook-endpoints", {
      url: platform.url,
      events: ["webhook_endpoint.disabled"],
    });
    platform.secrets.push(made.json<{ secret: string }>().secret);
    const owner = await testApp.createOrganization();
    const failing = await startWebhookReceiver();
    failing.answer = 500;
    const endpoint = (await create(testApp, owner, { url: failing.url, events: ["webhook.test"] })).json<{
      id: string;
      secret: string;
    }>();
    failing.secrets.push(endpoint.secret);
    await testApp.app.inject({
      method: "POST",
      url: `/v1/webhook-endpoints/${endpoint.id}/test`,
      headers: owner.headers,
    });
    const send = () => testApp.services.webhookDispatcher.runOnce();
    await send();
    expect(failing.deliveries).toHaveLength(1);
    // Every retry of the schedule fails as it comes due (about 28 hours in all): the endpoint is failing,
    // not yet for five days, and still enabled.
    for (const hours of [0.01, 0.1, 0.5, 2, 5, 10, 10]) {
      clock.advance(hours * 3600 * 1000);
      expect(await send()).toBe(1);
    }
    expect(failing.deliveries).toHaveLength(8);
    clock.advance(10 * 3600 * 1000);
    expect(await send()).toBe(0);
    const enabled = async () =>
      (
        await testApp.app.inject({ url: `/v1/webhook-endpoints/${endpoint.id}`, headers: owner.headers })
      ).json<{ enabled: boolean }>().enabled;
    expect(await enabled()).toBe(true);
    // Five days after the first failure, the next failure disables it.
    clock.advance(5 * 24 * 3600 * 1000);
    await testApp.app.inject({
      method: "POST",
      url: `/v1/webhook-endpoints/${endpoint.id}/test`,
      headers: owner.headers,
    });
    await send();
    expect(await enabled()).toBe(false);
    await send();
    await platform.waitFor((all) => all.length === 1);
    expect(platform.deliveries[0]?.payload).toMatchObject({
      type: "webhook_endpoint.disabled",
      data: { organization_id: owner.orgId, endpoint_id: endpoint.id },
    });
    const read = await testApp.app.inject({
      url: `/v1/webhook-endpoints/${endpoint.id}`,
      headers: owner.headers,
    });
    expect(read.json()).toMatchObject({ enabled: false });

    const attempts = async () =>
      (
        await testApp.app.inject({
          url: `/v1/webhook-endpoints/${endpoint.id}/attempts`,
          headers: owner.headers,
        })
      ).json<{ data: unknown[] }>().data.length;
    expect(await attempts()).toBeGreaterThan(1);
    clock.advance(31 * 24 * 3600 * 1000);
    await testApp.services.webhookDispatcher.maintain();
    expect(await attempts()).toBe(0);
  });
});
