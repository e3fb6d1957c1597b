import type { InjectOptions } from "fastify";
import { expect, test } from "vitest";
import { basicAuth, buildTestApp, fakeClock } from "../helpers/build-test-app.js";
import { repeat } from "../helpers/http-keys.js";
import { oneCharacterOff } from "../helpers/near-secret.js";

/** docs/keys.md: a secret appears in no log line, whatever happens to the request carrying it. */

test("a whole session of requests logs no secret and no Authorization value", async () => {
  const testApp = await buildTestApp({ clock: fakeClock(), env: { LATCHKEY_LOG_LEVEL: "trace" } });
  const { app, logs } = testApp;
  const owner = await testApp.createOrganization();
  const authorizations = new Set<string>([owner.headers.authorization]);
  const secrets = new Set<string>([owner.secret]);
  const send = async (options: InjectOptions & { headers?: Record<string, string> }) => {
    if (options.headers?.authorization) authorizations.add(options.headers.authorization);
    return app.inject(options);
  };

  // Creates that return secrets, then the new keys at work.
  const created: Array<{ id: string; api_id: string; api_key: string }> = [];
  for (const permissions of [["api_keys:read"], ["api_keys:read", "api_keys:create_update"], []]) {
    const response = await send({
      method: "POST",
      url: "/v1/api-keys",
      headers: owner.headers,
      payload: { permissions },
    });
    expect(response.statusCode).toBe(200);
    created.push(response.json());
    secrets.add(response.json().api_key);
  }
  const [reader, writer, idle] = created;
  if (!reader || !writer || !idle) throw new Error("three keys expected");
  await send({ method: "GET", url: "/v1/api-keys", headers: basicAuth(reader.api_id, reader.api_key) });
  await send({
    method: "POST",
    url: `/v1/api-keys/${idle.id}`,
    headers: basicAuth(writer.api_id, writer.api_key),
    payload: { name: "renamed", permissions: [] },
  });
  await send({ method: "DELETE", url: `/v1/api-keys/${idle.id}`, headers: owner.headers });

  // Every flavour of failed authentication, including a real secret under the wrong api_id.
  await send({ method: "GET", url: "/v1/api-keys", headers: basicAuth(owner.apiId, reader.api_key) });
  await send({
    method: "GET",
    url: "/v1/api-keys",
    headers: basicAuth(reader.api_id, "lksk_wrongwrongwrong"),
  });
  secrets.add("lksk_wrongwrongwrong");
  await send({ method: "GET", url: "/v1/api-keys", headers: { authorization: `Bearer ${owner.secret}` } });
  await send({ method: "GET", url: "/v1/api-keys", headers: basicAuth(idle.api_id, idle.api_key) });
  await send({ method: "GET", url: "/v1/api-keys" });
  // Bad input, a missing permission and an unknown id.
  await send({
    method: "POST",
    url: "/v1/api-keys",
    headers: basicAuth(reader.api_id, reader.api_key),
    payload: {},
  });
  await send({ method: "POST", url: "/v1/api-keys", headers: owner.headers, payload: "{not json" });
  await send({ method: "GET", url: "/v1/api-keys/key_0000000000000000000000", headers: owner.headers });

  // The platform side: a service token and the customer's Authorization it relays, allowed and refused.
  const { token } = await testApp.services.serviceTokens.create("image service");
  secrets.add(token);
  for (const serviceToken of [token, oneCharacterOff(token)]) {
    await send({
      method: "POST",
      url: "/v1/authorize",
      headers: { "x-latchkey-service-token": serviceToken },
      payload: { authorization: owner.headers.authorization, permission: "images:create", credits: 1 },
    });
    await send({
      method: "GET",
      url: "/v1/forward-auth",
      headers: { ...owner.headers, "x-latchkey-service-token": serviceToken, "x-forwarded-uri": "/v1/image" },
    });
  }
  secrets.add(oneCharacterOff(token));

  // 429s.
  const statuses = await repeat(testApp, 20, {
    method: "POST",
    url: "/v1/api-keys",
    headers: owner.headers,
    payload: {},
  });
  expect(statuses).toContain(429);

  // A 500: the store fails while the request is being served.
  testApp.services.store.listKeys = async () => {
    throw new Error("disk I/O error");
  };
  const failed = await send({ method: "GET", url: "/v1/api-keys", headers: owner.headers });
  expect(failed.statusCode).toBe(500);

  // The logs were captured (the failure and the requests are there), and hold no credential.
  const text = logs.join("\n");
  expect(text).toContain("disk I/O error");
  expect(logs.filter((line) => line.includes('"route":"/v1/api-keys"')).length).toBeGreaterThan(10);
  for (const secret of secrets) expect(text).not.toContain(secret);
  for (const authorization of authorizations) {
    expect(text).not.toContain(authorization);
    expect(text).not.toContain(authorization.replace(/^\S+ /, ""));
  }
});
