import { describe, expect, it } from "vitest";
import { adminApp } from "../helpers/admin.js";
import { buildTestApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { keyWith } from "../helpers/http-keys.js";

const ENDPOINT = { url: "https://93.184.215.14/hooks", events: ["webhook.test"] };

const endpointCount = async (testApp: TestApp, owner: TestKey) =>
  (await testApp.app.inject({ url: "/v1/webhook-endpoints?count=100", headers: owner.headers })).json<{
    data: unknown[];
  }>().data.length;

describe("Idempotency-Key on the webhook POSTs", () => {
  it("the platform's create, rotate-secret and test: a retry gets the first answer and changes nothing again", async () => {
    const { testApp, admin } = await adminApp();
    const once = { headers: { "idempotency-key": "create-1" } };
    const first = await admin("POST", "/v1/admin/webhook-endpoints", ENDPOINT, once);
    expect(first.statusCode, first.body).toBe(201);
    const again = await admin("POST", "/v1/admin/webhook-endpoints", ENDPOINT, once);
    expect(again.statusCode).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toEqual(first.json());
    const list = await admin("GET", "/v1/admin/webhook-endpoints");
    expect(list.json<{ data: unknown[] }>().data).toHaveLength(1);
    const other = await admin(
      "POST",
      "/v1/admin/webhook-endpoints",
      { ...ENDPOINT, url: "https://93.184.215.14/x" },
      once,
    );
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ code: "idempotency_key_reused" });

    const id = first.json<{ id: string }>().id;
    const rotate = { headers: { "idempotency-key": "rotate-1" } };
    const rotated = await admin("POST", `/v1/admin/webhook-endpoints/${id}/rotate-secret`, undefined, rotate);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const rotatedAgain = await admin(
      "POST",
      `/v1/admin/webhook-endpoints/${id}/rotate-secret`,
      undefined,
      rotate,
    );
    expect(rotatedAgain.json()).toEqual(rotated.json());
    // Rotated once: the first secret is the one still signing beside the new one.
    const endpoint = await testApp.services.webhooks.get(null, id);
    expect(endpoint.secret).toBe(rotated.json<{ secret: string }>().secret);
    expect(endpoint.previousSecret).toBe(first.json<{ secret: string }>().secret);

    // The same key on another endpoint's rotation is another request, not the first one's answer.
    const second = await admin("POST", "/v1/admin/webhook-endpoints", {
      ...ENDPOINT,
      url: "https://93.184.215.14/2",
    });
    const secondId = second.json<{ id: string }>().id;
    const elsewhere = await admin(
      "POST",
      `/v1/admin/webhook-endpoints/${secondId}/rotate-secret`,
      undefined,
      rotate,
    );
    expect(elsewhere.statusCode).toBe(409);
    expect(elsewhere.json()).toMatchObject({ code: "idempotency_key_reused" });

    const test = { headers: { "idempotency-key": "test-1" } };
    const sent = await admin("POST", `/v1/admin/webhook-endpoints/${id}/test`, undefined, test);
    expect(sent.statusCode).toBe(202);
    const sentAgain = await admin("POST", `/v1/admin/webhook-endpoints/${id}/test`, undefined, test);
    expect(sentAgain.json<{ id: string }>().id).toBe(sent.json<{ id: string }>().id);
    const page = await testApp.services.audit.list({ orgId: null, count: 50 });
    const actions = page.entries.map((entry) => entry.action);
    expect(actions.filter((action) => action === "webhook_endpoint.create")).toHaveLength(2);
    expect(actions.filter((action) => action === "webhook_endpoint.rotate_secret")).toHaveLength(1);
    expect(actions.filter((action) => action === "webhook_endpoint.test")).toHaveLength(1);
  });

  it("another service token with the same key makes its own endpoint and never sees the first secret", async () => {
    const { testApp, admin } = await adminApp();
    const { token: otherToken } = await testApp.services.serviceTokens.create("crm", undefined, [
      "provision",
    ]);
    const headers = { "idempotency-key": "shared" };
    const first = await admin("POST", "/v1/admin/webhook-endpoints", ENDPOINT, { headers });
    const byOther = await admin("POST", "/v1/admin/webhook-endpoints", ENDPOINT, {
      headers,
      token: otherToken,
    });
    expect(byOther.statusCode).toBe(201);
    expect(byOther.headers["idempotent-replayed"]).toBeUndefined();
    expect(byOther.json<{ id: string }>().id).not.toBe(first.json<{ id: string }>().id);
    expect(byOther.body).not.toContain(first.json<{ secret: string }>().secret);
  });

  it("an organization's create: a retry by the same key replays, another key of the organization creates its own", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const create = (headers: Record<string, string>) =>
      testApp.app.inject({
        method: "POST",
        url: "/v1/webhook-endpoints",
        headers: { ...headers, "idempotency-key": "org-create" },
        payload: ENDPOINT,
      });
    const first = await create(owner.headers);
    expect(first.statusCode, first.body).toBe(201);
    const again = await create(owner.headers);
    expect(again.json()).toEqual(first.json());
    expect(await endpointCount(testApp, owner)).toBe(1);
    const colleague = await keyWith(testApp, owner, ["webhooks:read", "webhooks:create_update"]);
    const byColleague = await create(colleague.headers);
    expect(byColleague.statusCode).toBe(201);
    expect(byColleague.body).not.toContain(first.json<{ secret: string }>().secret);
    expect(await endpointCount(testApp, owner)).toBe(2);
  });
});
