import { randomBytes } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, onTestFinished, test } from "vitest";
import { basicAuth, buildTestApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { seedDisable, seedKey } from "../helpers/http-keys.js";
import { oneCharacterOff } from "../helpers/near-secret.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";
import { MCP_POST_HEADERS, rpc } from "../mcp/mcp-client.js";

// A client on one keep-alive connection sends the same credentials with every request. Over one real
// such connection: every request's credentials are checked in full (a wrong secret right after the
// right one is refused), and a disable or a revocation is seen on the very next request.

interface Answer {
  status: number;
  body: string;
  /** The client's port: the same on every request of one connection. */
  port: number;
}

/** Sends every request over one keep-alive connection, as a client with a pool of one does. */
function oneConnection(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest({ host: "127.0.0.1", port, method, path, headers, agent }, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: text, port: outgoing.socket?.localPort ?? 0 }),
        );
      });
      outgoing.on("error", reject);
      outgoing.end(body);
    });
  return { send, close: () => agent.destroy() };
}

const otherSecret = (key: TestKey) => basicAuth(key.apiId, oneCharacterOff(key.secret));

/** The cases, over one backend: `backendEnv` gives its environment (a fresh database per test). */
function keepAliveCases(backendEnv: () => Promise<Record<string, string>>) {
  async function listening(): Promise<{ testApp: TestApp; owner: TestKey; port: number }> {
    const testApp = await buildTestApp({ env: await backendEnv() });
    await testApp.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = testApp.app.server.address() as AddressInfo;
    return { testApp, owner: await testApp.createOrganization(), port };
  }

  test("on one connection, a wrong secret right after the right one is refused", async () => {
    const { owner, port } = await listening();
    const connection = oneConnection(port);
    const read = `/v1/api-keys/${owner.id}`;
    const list = "/v1/api-keys";
    const statuses: number[] = [];
    const ports = new Set<number>();
    for (const [path, headers] of [
      [read, owner.headers],
      [read, otherSecret(owner)],
      [read, owner.headers],
      [list, owner.headers],
      [list, otherSecret(owner)],
      [read, {}],
      [list, owner.headers],
    ] as const) {
      const answer = await connection.send("GET", path, headers);
      statuses.push(answer.status);
      ports.add(answer.port);
    }
    connection.close();
    expect(statuses).toEqual([200, 401, 200, 200, 401, 401, 200]);
    expect(ports.size).toBe(1);
  });

  test("a secret that worked, with another key's api_id or with an unknown one, is refused", async () => {
    const { testApp, owner, port } = await listening();
    const other = await seedKey(testApp, owner, { permissions: ["api_keys:read"] });
    const connection = oneConnection(port);
    const read = `/v1/api-keys/${owner.id}`;
    expect((await connection.send("GET", read, owner.headers)).status).toBe(200);
    const borrowed = basicAuth(other.apiId, owner.secret);
    expect((await connection.send("GET", read, borrowed)).status).toBe(401);
    const unknown = basicAuth(`lkid_${"0".repeat(22)}`, owner.secret);
    expect((await connection.send("GET", read, unknown)).status).toBe(401);
    expect((await connection.send("GET", read, other.headers)).status).toBe(200);
    connection.close();
  });

  test("MCP, on one connection: a wrong secret right after the right one is an HTTP 401", async () => {
    const { owner, port } = await listening();
    const connection = oneConnection(port);
    const listTools = (headers: Record<string, string>) =>
      connection.send("POST", "/mcp", { ...MCP_POST_HEADERS, ...headers }, rpc("tools/list"));
    const statuses: number[] = [];
    for (const headers of [owner.headers, otherSecret(owner), owner.headers]) {
      statuses.push((await listTools(headers)).status);
    }
    connection.close();
    expect(statuses).toEqual([200, 401, 200]);
  });

  test("a key disabled through another connection is refused on the next request of the one that used it", async () => {
    const { testApp, owner, port } = await listening();
    const reader = await seedKey(testApp, owner, { permissions: ["api_keys:read"] });
    const connection = oneConnection(port);
    for (const path of [`/v1/api-keys/${reader.id}`, "/v1/api-keys"]) {
      expect((await connection.send("GET", path, reader.headers)).status).toBe(200);
    }
    await seedDisable(testApp, owner, reader);
    for (const path of [`/v1/api-keys/${reader.id}`, "/v1/api-keys"]) {
      expect((await connection.send("GET", path, reader.headers)).status).toBe(401);
    }
    connection.close();
  });

  test("a service token revoked elsewhere is refused on the next authorize of the connection that used it", async () => {
    const { testApp, owner, port } = await listening();
    const { record, token } = await testApp.services.serviceTokens.create("renderer");
    const connection = oneConnection(port);
    const authorize = (serviceToken: string) =>
      connection.send(
        "POST",
        "/v1/authorize",
        { "content-type": "application/json", "x-latchkey-service-token": serviceToken },
        JSON.stringify({ authorization: owner.headers.authorization, permission: "images:create" }),
      );
    const allowed = await authorize(token);
    expect(allowed.status).toBe(200);
    expect(JSON.parse(allowed.body)).toMatchObject({ allowed: true, status: 200 });
    // A token one character off, right after the right one: refused.
    const near = oneCharacterOff(token);
    expect(JSON.parse((await authorize(near)).body).code).toBe("invalid_service_token");
    expect((await authorize(token)).status).toBe(200);

    await testApp.services.serviceTokens.revoke(record.id);
    const refused = await authorize(token);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body).code).toBe("invalid_service_token");
    connection.close();
  });
}

describe("SQLite", () => keepAliveCases(async () => ({})));

// There the caller's key is cached by record version and confirmed by the rate-limit script
// (access-decision.ts, decideOnCachedCaller): its secret is checked on every request all the same.
describeWithServices(["postgres", "redis"], "PostgreSQL + Redis", (services) =>
  keepAliveCases(async () => {
    const schema = await createPostgresSchema(services.postgres);
    onTestFinished(() => schema.drop());
    return {
      LATCHKEY_DATABASE_URL: schema.url,
      LATCHKEY_REDIS_URL: services.redis,
      LATCHKEY_REDIS_PREFIX: `lk_test_${randomBytes(6).toString("hex")}`,
    };
  }),
);
