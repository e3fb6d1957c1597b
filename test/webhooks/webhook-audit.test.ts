import { describe, expect, it } from "vitest";
import { adminApp } from "../helpers/admin.js";
import { buildTestApp } from "../helpers/build-test-app.js";

const ENDPOINT = { url: "https://93.184.215.14/hooks", events: ["webhook.test", "api_key.created"] };

interface Entry {
  actor: string;
  action: string;
  organization_id: string | null;
  target_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

describe("webhook endpoint changes are audited, never with a signing secret", () => {
  it("an organization's create, update, rotate, test, resend and delete: one entry each, actor the key, in GET /v1/audit", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const send = (method: "POST" | "PATCH" | "DELETE", url: string, payload?: object) =>
      testApp.app.inject({ method, url, headers: owner.headers, ...(payload ? { payload } : {}) });
    const made = await send("POST", "/v1/webhook-endpoints", ENDPOINT);
    expect(made.statusCode, made.body).toBe(201);
    const { id, secret } = made.json<{ id: string; secret: string }>();
    expect((await send("PATCH", `/v1/webhook-endpoints/${id}`, { description: "billing" })).statusCode).toBe(
      200,
    );
    const rotated = await send("POST", `/v1/webhook-endpoints/${id}/rotate-secret`);
    const newSecret = rotated.json<{ secret: string }>().secret;
    const message = (await send("POST", `/v1/webhook-endpoints/${id}/test`)).json<{ id: string }>();
    expect((await send("POST", `/v1/webhook-messages/${message.id}/resend`)).statusCode).toBe(202);
    expect((await send("DELETE", `/v1/webhook-endpoints/${id}`)).statusCode).toBe(204);

    const audit = await testApp.app.inject({ url: "/v1/audit?count=50", headers: owner.headers });
    expect(audit.statusCode, audit.body).toBe(200);
    const entries = audit
      .json<{ data: Entry[] }>()
      .data.filter((entry) => entry.action.startsWith("webhook_"))
      .reverse();
    expect(entries.map((entry) => [entry.action, entry.target_id])).toEqual([
      ["webhook_endpoint.create", id],
      ["webhook_endpoint.update", id],
      ["webhook_endpoint.rotate_secret", id],
      ["webhook_endpoint.test", id],
      ["webhook_message.resend", message.id],
      ["webhook_endpoint.delete", id],
    ]);
    for (const entry of entries) {
      expect(entry.actor).toBe(owner.id);
      expect(entry.organization_id).toBe(owner.orgId);
    }
    expect(entries[0]?.after).toMatchObject({ url: ENDPOINT.url, events: ENDPOINT.events, enabled: true });
    expect(entries[1]?.before).toMatchObject({ description: null });
    expect(entries[1]?.after).toMatchObject({ description: "billing" });
    expect(entries[2]?.after?.previous_secret_expires_at).toEqual(expect.any(String));
    expect(entries[3]?.after).toMatchObject({ message_id: message.id, type: "webhook.test" });
    expect(entries[4]?.after).toMatchObject({ message_id: message.id, queued: 1 });
    expect(entries[5]).toMatchObject({ before: { id }, after: null });
    expect(audit.body).not.toContain(secret);
    expect(audit.body).not.toContain(newSecret);
    expect(audit.body).not.toContain("whsec_");
  });

  it("a refused change records nothing", async () => {
    const testApp = await buildTestApp();
    const owner = await testApp.createOrganization();
    const refused = await testApp.app.inject({
      method: "POST",
      url: "/v1/webhook-endpoints",
      headers: owner.headers,
      payload: { url: "https://10.0.0.1/", events: ["webhook.test"] },
    });
    expect(refused.statusCode).toBe(400);
    const missing = await testApp.app.inject({
      method: "DELETE",
      url: "/v1/webhook-endpoints/whe_missing",
      headers: owner.headers,
    });
    expect(missing.statusCode).toBe(404);
    const page = await testApp.services.audit.list({ orgId: owner.orgId, count: 50 });
    expect(page.entries.filter((entry) => entry.action.startsWith("webhook_"))).toEqual([]);
  });

  it("the platform's endpoints are audited as service_token:<id>, deployment-wide", async () => {
    const { testApp, admin, tokenId } = await adminApp();
    const made = await admin("POST", "/v1/admin/webhook-endpoints", {
      ...ENDPOINT,
      events: ["organization.created"],
    });
    expect(made.statusCode, made.body).toBe(201);
    const { id, secret } = made.json<{ id: string; secret: string }>();
    await admin("PATCH", `/v1/admin/webhook-endpoints/${id}`, { disabled: true });
    await admin("POST", `/v1/admin/webhook-endpoints/${id}/rotate-secret`);
    const message = (await admin("POST", `/v1/admin/webhook-endpoints/${id}/test`)).json<{ id: string }>();
    expect((await admin("POST", `/v1/admin/webhook-messages/${message.id}/resend`)).statusCode).toBe(202);
    expect((await admin("DELETE", `/v1/admin/webhook-endpoints/${id}`)).statusCode).toBe(204);

    const page = await testApp.services.audit.list({ orgId: null, count: 50 });
    const entries = page.entries.filter((entry) => entry.action.startsWith("webhook_")).reverse();
    expect(entries.map((entry) => entry.action)).toEqual([
      "webhook_endpoint.create",
      "webhook_endpoint.update",
      "webhook_endpoint.rotate_secret",
      "webhook_endpoint.test",
      "webhook_message.resend",
      "webhook_endpoint.delete",
    ]);
    for (const entry of entries) {
      expect(entry.actor).toBe(`service_token:${tokenId}`);
      expect(entry.orgId).toBeNull();
    }
    expect(entries[1]?.after).toMatchObject({ enabled: false });
    expect(JSON.stringify(entries)).not.toContain(secret);
    expect(JSON.stringify(entries)).not.toContain("whsec_");
  });
});
