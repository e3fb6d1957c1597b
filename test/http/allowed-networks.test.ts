import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { KeyInput } from "../../src/services/key-service.js";
import { basicAuth, ownerApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { platformApp } from "../helpers/platform.js";
import { tempDir } from "../helpers/processes.js";

/** allowed_cidrs (docs/keys.md "Allowed networks"): who may use a key, from where, on every surface. */

async function keyWith(testApp: TestApp, owner: TestKey, input: Partial<KeyInput>): Promise<TestKey> {
  const caller = await testApp.services.store.findKey(owner.orgId, owner.id);
  if (!caller) throw new Error("no owner");
  const { key, secret } = await testApp.services.keys.create(caller, {
    all_future_permissions: true,
    permissions: [],
    ...input,
  });
  return { id: key.id, apiId: key.apiId, secret, orgId: key.orgId, headers: basicAuth(key.apiId, secret) };
}

function listFrom(
  testApp: TestApp,
  key: TestKey,
  remoteAddress: string,
  headers: Record<string, string> = {},
) {
  return testApp.app.inject({
    method: "GET",
    url: "/v1/api-keys",
    remoteAddress,
    headers: { ...key.headers, ...headers },
  });
}

describe("REST: the socket peer", () => {
  test("a key is used from inside its networks, IPv4 and IPv6, and refused elsewhere naming the address", async () => {
    const { testApp, owner } = await ownerApp();
    const key = await keyWith(testApp, owner, { allowed_cidrs: ["203.0.113.0/24", "2001:db8::/32"] });
    expect((await listFrom(testApp, key, "203.0.113.7")).statusCode).toBe(200);
    expect((await listFrom(testApp, key, "2001:db8:1::5")).statusCode).toBe(200);
    // What a dual-stack socket reports for an IPv4 client.
    expect((await listFrom(testApp, key, "::ffff:203.0.113.9")).statusCode).toBe(200);
    const refused = await listFrom(testApp, key, "198.51.100.23");
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      statusCode: 403,
      error: "Forbidden",
      code: "ip_not_allowed",
      message: expect.stringContaining("198.51.100.23"),
    });
    expect(refused.json().message).not.toContain("203.0.113");
    expect((await listFrom(testApp, key, "2001:db9::1")).json().code).toBe("ip_not_allowed");
  });

  test("a key without allowed_cidrs is used from anywhere, and its record says null", async () => {
    const { testApp, owner } = await ownerApp();
    const key = await keyWith(testApp, owner, {});
    expect((await listFrom(testApp, key, "198.51.100.23")).statusCode).toBe(200);
    const record = await testApp.app.inject({
      method: "GET",
      url: `/v1/api-keys/${key.id}`,
      headers: owner.headers,
    });
    expect(record.json()).toMatchObject({ allowed_cidrs: null, metadata: null });
  });

  test("over a real connection, the peer is the address the server saw", async () => {
    const { testApp, owner } = await ownerApp();
    const address = await testApp.app.listen({ port: 0, host: "127.0.0.1" });
    const inside = await keyWith(testApp, owner, { allowed_cidrs: ["127.0.0.0/8"] });
    const outside = await keyWith(testApp, owner, { allowed_cidrs: ["10.0.0.0/8"] });
    expect((await fetch(`${address}/v1/api-keys`, { headers: inside.headers })).status).toBe(200);
    const refused = await fetch(`${address}/v1/api-keys`, {
      // Without a trusted proxy, the header is the client's own claim and is ignored.
      headers: { ...outside.headers, "x-forwarded-for": "10.0.0.1" },
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toContain("127.0.0.1");
  });

  test("the refusal comes after the credentials: a wrong secret from outside is still 401", async () => {
    const { testApp, owner } = await ownerApp();
    const key = await keyWith(testApp, owner, { allowed_cidrs: ["203.0.113.0/24"] });
    const wrong = { ...key, headers: basicAuth(key.apiId, `${key.secret.slice(0, -1)}x`) };
    expect((await listFrom(testApp, wrong, "198.51.100.23")).statusCode).toBe(401);
  });
});

test("MCP: a key from elsewhere is refused before any MCP message is read", async () => {
  const { testApp, owner } = await ownerApp();
  const address = await testApp.app.listen({ port: 0, host: "127.0.0.1" });
  const outside = await keyWith(testApp, owner, { allowed_cidrs: ["10.0.0.0/8"] });
  const response = await fetch(`${address}/mcp`, {
    method: "POST",
    headers: {
      ...outside.headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: "{not json",
  });
  expect(response.status).toBe(403);
  expect(await response.json()).toMatchObject({
    code: "ip_not_allowed",
    message: expect.stringContaining("127.0.0.1"),
  });
});

describe("the key's networks in the order of checks", () => {
  test("a key from outside that also lacks the permission is 403 ip_not_allowed", async () => {
    const { testApp, owner } = await ownerApp();
    const key = await keyWith(testApp, owner, {
      all_future_permissions: false,
      permissions: ["usage:read"],
      allowed_cidrs: ["203.0.113.0/24"],
    });
    const response = await listFrom(testApp, key, "198.51.100.23");
    expect(response.json().code).toBe("ip_not_allowed");
  });

  test("a refusal from outside takes no slot of the organization's rate limit", async () => {
    const { testApp, owner } = await ownerApp();
    const key = await keyWith(testApp, owner, { allowed_cidrs: ["203.0.113.0/24"] });
    const remaining = async () => {
      const response = await listFrom(testApp, owner, "198.51.100.23");
      const value = /r=(\d+)/.exec(String(response.headers.ratelimit))?.[1];
      expect(value).toBeDefined();
      return Number(value);
    };
    const before = await remaining();
    const refused = await listFrom(testApp, key, "198.51.100.23");
    expect(refused.statusCode).toBe(403);
    expect(refused.headers.ratelimit).toBeUndefined();
    expect(await remaining()).toBe(before - 1);
  });
});

describe("REST: LATCHKEY_TRUSTED_PROXIES", () => {
  const env = { LATCHKEY_TRUSTED_PROXIES: "10.0.0.0/8, fd00::/8" };

  test("behind a trusted proxy, the right-most untrusted X-Forwarded-For hop is the client", async () => {
    const { testApp, owner } = await ownerApp({ env });
    const key = await keyWith(testApp, owner, { allowed_cidrs: ["203.0.113.0/24"] });
    const via = (forwardedFor: string, peer = "10.0.0.2") =>
      listFrom(testApp, key, peer, { "x-forwarded-for": forwardedFor });
    expect((await via("203.0.113.7")).statusCode).toBe(200);
    // Two trusted hops (a load balancer, then a gateway) are skipped from the right.
    expect((await via("203.0.113.7, 10.1.1.1", "fd00::2")).statusCode).toBe(200);
    // A client that writes its own header cannot choose its address: the right-most untrusted hop counts.
    const forged = await via("203.0.113.7, 198.51.100.23");
    expect(forged.statusCode).toBe(403);
    expect(forged.json().message).toContain("198.51.100.23");
  });

  test("an untrusted peer is the client, whatever its X-Forwarded-For says", async () => {
    const { testApp, owner } = await ownerApp({ env });
    const key = await keyWith(testApp, owner, { allowed_cidrs: ["203.0.113.0/24"] });
    const refused = await listFrom(testApp, key, "198.51.100.23", { "x-forwarded-for": "203.0.113.7" });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toContain("198.51.100.23");
  });

  test("a hop that is not an address is named and matches no network", async () => {
    const { testApp, owner } = await ownerApp({ env });
    const key = await keyWith(testApp, owner, { allowed_cidrs: ["0.0.0.0/0", "::/0"] });
    const refused = await listFrom(testApp, key, "10.0.0.2", { "x-forwarded-for": "unknown" });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toContain("unknown");
  });
});

describe("POST /v1/authorize: client_ip", () => {
  const ask = (authorization: string, extra: Record<string, unknown> = {}) => ({
    authorization,
    permission: "images:create",
    ...extra,
  });

  test("is required for a key with allowed_cidrs, and decides like the peer does on REST", async () => {
    const { testApp, owner, authorize } = await platformApp();
    const key = await keyWith(testApp, owner, { allowed_cidrs: ["203.0.113.0/24"] });
    const inside = await authorize(ask(key.headers.authorization, { client_ip: "203.0.113.7" }));
    expect(inside.json()).toMatchObject({ allowed: true, status: 200 });
    const outside = await authorize(ask(key.headers.authorization, { client_ip: "198.51.100.23" }));
    expect(outside.json()).toMatchObject({
      allowed: false,
      status: 403,
      error: { code: "ip_not_allowed", message: expect.stringContaining("198.51.100.23") },
    });
    const without = await authorize(ask(key.headers.authorization));
    expect(without.statusCode).toBe(200);
    expect(without.json()).toMatchObject({
      allowed: false,
      status: 403,
      error: { code: "ip_not_allowed", message: expect.stringContaining("client_ip") },
    });
  });

  test("is optional for a key without allowed_cidrs", async () => {
    const { testApp, owner, authorize } = await platformApp();
    const key = await keyWith(testApp, owner, {});
    expect((await authorize(ask(key.headers.authorization))).json().allowed).toBe(true);
    expect(
      (await authorize(ask(key.headers.authorization, { client_ip: "2001:db8::1" }))).json().allowed,
    ).toBe(true);
  });

  test.each(["203.0.113.7:443", "[2001:db8::1]", "fe80::1%eth0", "203.0.113.256", "localhost", ""])(
    "a bad client_ip (%j) is a 400 naming the field",
    async (clientIp) => {
      const { authorize, owner } = await platformApp();
      const response = await authorize(ask(owner.headers.authorization, { client_ip: clientIp }));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        code: "invalid_request",
        validation_errors: [{ path: "/client_ip" }],
      });
    },
  );
});

describe("forward-auth: the gateway's X-Forwarded-For", () => {
  async function gateway(env: Record<string, string> = {}) {
    const routes = join(tempDir(), "routes.json");
    writeFileSync(routes, JSON.stringify([{ path: "/v1/**", permission: "images:read" }]));
    const platform = await platformApp({ env: { LATCHKEY_ROUTES: routes, ...env } });
    const key = await keyWith(platform.testApp, platform.owner, { allowed_cidrs: ["203.0.113.0/24"] });
    const forward = (headers: Record<string, string>) =>
      platform.testApp.app.inject({
        method: "GET",
        url: "/v1/forward-auth",
        // The gateway is the socket peer; its own address is never the client's.
        remoteAddress: "203.0.113.1",
        headers: {
          "x-latchkey-service-token": platform.serviceToken,
          "x-forwarded-method": "GET",
          "x-forwarded-uri": "/v1/images",
          ...key.headers,
          ...headers,
        },
      });
    return forward;
  }

  test("the right-most hop is the address the gateway saw", async () => {
    const forward = await gateway();
    expect((await forward({ "x-forwarded-for": "203.0.113.7" })).statusCode).toBe(200);
    const refused = await forward({ "x-forwarded-for": "203.0.113.7, 198.51.100.23" });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      code: "ip_not_allowed",
      message: expect.stringContaining("198.51.100.23"),
    });
  });

  test("hops of LATCHKEY_TRUSTED_PROXIES in front of the gateway are skipped", async () => {
    const forward = await gateway({ LATCHKEY_TRUSTED_PROXIES: "10.0.0.0/8" });
    expect((await forward({ "x-forwarded-for": "203.0.113.7, 10.0.0.9" })).statusCode).toBe(200);
  });

  test("a gateway that sends no X-Forwarded-For gets the key refused, saying so", async () => {
    const forward = await gateway();
    const refused = await forward({});
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      code: "ip_not_allowed",
      message: expect.stringContaining("X-Forwarded-For"),
    });
  });
});

describe("create and update", () => {
  const post = (testApp: TestApp, owner: TestKey, url: string, payload: Record<string, unknown>) =>
    testApp.app.inject({ method: "POST", url, headers: owner.headers, payload });

  test("an update that omits allowed_cidrs keeps them (an official hcti.io client's full replacement)", async () => {
    const { testApp, owner } = await ownerApp();
    const created = await post(testApp, owner, "/v1/api-keys", {
      name: "ci",
      permissions: ["images:create"],
      allowed_cidrs: ["203.0.113.0/24"],
    });
    expect(created.json().allowed_cidrs).toEqual(["203.0.113.0/24"]);
    const id = created.json().id as string;
    // The spec's fields only, as the hcti.io clients send them.
    const kept = await post(testApp, owner, `/v1/api-keys/${id}`, {
      name: "ci renamed",
      description: null,
      disabled: false,
      permissions: ["images:create"],
      all_future_permissions: false,
    });
    expect(kept.json()).toMatchObject({ name: "ci renamed", allowed_cidrs: ["203.0.113.0/24"] });
    const replaced = await post(testApp, owner, `/v1/api-keys/${id}`, {
      permissions: [],
      allowed_cidrs: ["2001:db8::/32"],
    });
    expect(replaced.json().allowed_cidrs).toEqual(["2001:db8::/32"]);
    const cleared = await post(testApp, owner, `/v1/api-keys/${id}`, {
      permissions: [],
      allowed_cidrs: null,
    });
    expect(cleared.json().allowed_cidrs).toBeNull();
  });

  test.each([
    ["a bad CIDR", { allowed_cidrs: ["203.0.113.0/24", "10.0.0.0/33"] }, "/allowed_cidrs/1"],
    ["an address without a prefix", { allowed_cidrs: ["203.0.113.7"] }, "/allowed_cidrs/0"],
    ["a zone", { allowed_cidrs: ["fe80::1%eth0/64"] }, "/allowed_cidrs/0"],
    ["51 CIDRs", { allowed_cidrs: Array.from({ length: 51 }, (_, i) => `10.0.${i}.0/24`) }, "/allowed_cidrs"],
    ["an empty list", { allowed_cidrs: [] }, "/allowed_cidrs"],
  ])("%s is a 400 naming the field, and nothing is stored", async (_label, fields, path) => {
    const { testApp, owner } = await ownerApp();
    const before = (await testApp.services.store.listOrganizations())[0]?.keyCount;
    const created = await post(testApp, owner, "/v1/api-keys", { permissions: [], ...fields });
    expect(created.statusCode).toBe(400);
    expect(created.json().validation_errors).toEqual([{ path, message: expect.any(String) }]);
    expect((await testApp.services.store.listOrganizations())[0]?.keyCount).toBe(before);
    const updated = await post(testApp, owner, `/v1/api-keys/${owner.id}`, {
      all_future_permissions: true,
      permissions: [],
      name: "changed?",
      ...fields,
    });
    expect(updated.statusCode).toBe(400);
    expect(updated.json().validation_errors).toEqual([{ path, message: expect.any(String) }]);
    expect((await testApp.services.store.findKey(owner.orgId, owner.id))?.name).not.toBe("changed?");
  });

  test("50 CIDRs are accepted", async () => {
    const { testApp, owner } = await ownerApp();
    const cidrs = Array.from({ length: 50 }, (_, i) => `10.0.${i}.0/24`);
    const created = await post(testApp, owner, "/v1/api-keys", { permissions: [], allowed_cidrs: cidrs });
    expect(created.statusCode).toBe(200);
    expect(created.json().allowed_cidrs).toEqual(cidrs);
  });

  test("a change of networks is seen on the very next request", async () => {
    const { testApp, owner } = await ownerApp();
    const key = await keyWith(testApp, owner, {});
    expect((await listFrom(testApp, key, "198.51.100.23")).statusCode).toBe(200);
    await post(testApp, owner, `/v1/api-keys/${key.id}`, {
      all_future_permissions: true,
      permissions: [],
      allowed_cidrs: ["203.0.113.0/24"],
    });
    expect((await listFrom(testApp, key, "198.51.100.23")).statusCode).toBe(403);
    expect((await listFrom(testApp, key, "203.0.113.1")).statusCode).toBe(200);
  });
});
