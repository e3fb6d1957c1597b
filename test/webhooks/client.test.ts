import { LatchkeyClient, LatchkeyError } from "@latchkey/client";
import { expect, it } from "vitest";
import { startRealServer } from "../client/real-server.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

const FAST = {
  LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on",
  LATCHKEY_WEBHOOKS_POLL_MS: "20",
  LATCHKEY_WEBHOOKS_TIME_DIVISOR: "1000",
};

it("client.webhooks: create, list, test, attempts, resend, rotate, update, delete", async () => {
  const server = await startRealServer(FAST);
  const owner = await server.owner();
  const client = server.clientFor(owner);
  const receiver = await startWebhookReceiver();

  const endpoint = await client.webhooks.create({ url: receiver.url, events: ["api_key.created"] });
  receiver.secrets.push(endpoint.secret);
  expect((await client.webhooks.list()).data.map((e) => e.id)).toEqual([endpoint.id]);
  const all: string[] = [];
  for await (const each of client.webhooks.listAll()) all.push(each.id);
  expect(all).toEqual([endpoint.id]);

  const message = await client.webhooks.test(endpoint.id);
  await receiver.waitFor((deliveries) => deliveries.some((d) => d.id === message.id));
  await expect.poll(async () => (await client.webhooks.attempts(endpoint.id)).data.length).toBe(1);
  expect(await client.webhooks.resend(message.id)).toBe(1);
  await receiver.waitFor((deliveries) => deliveries.filter((d) => d.id === message.id).length === 2);

  const rotated = await client.webhooks.rotateSecret(endpoint.id);
  expect(rotated.secret).toMatch(/^whsec_/);
  expect((await client.webhooks.update(endpoint.id, { disabled: true })).enabled).toBe(false);
  await client.webhooks.delete(endpoint.id);
  const gone = await client.webhooks.get(endpoint.id).catch((error: unknown) => error);
  expect(gone).toBeInstanceOf(LatchkeyError);
  expect((gone as LatchkeyError).status).toBe(404);
});

it("client.admin.webhooks: the platform's endpoints with a provision token; an organization's key sees none", async () => {
  const server = await startRealServer(FAST);
  const { token } = await server.test.services.serviceTokens
    .create("billing", undefined, ["provision"])
    .then((made) => ({ token: made.token }));
  const platform = new LatchkeyClient({ baseUrl: server.url, serviceToken: token });
  const receiver = await startWebhookReceiver();
  const endpoint = await platform.admin.webhooks.create({
    url: receiver.url,
    events: ["organization.created"],
  });
  receiver.secrets.push(endpoint.secret);
  const created = await platform.admin.createOrganization({ name: "Acme" });
  await receiver.waitFor((all) =>
    all.some(
      (d) =>
        d.payload.type === "organization.created" &&
        d.payload.data.organization_id === created.organization.id,
    ),
  );
  const owner = await server.owner("other");
  expect((await server.clientFor(owner).webhooks.list()).data).toHaveLength(0);
  expect((await platform.admin.webhooks.list()).data.map((e) => e.id)).toEqual([endpoint.id]);
});
