import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { type ExampleGateway, startExampleGateway } from "../helpers/example-gateway.js";
import type { EchoUpstream, RunningCaddy } from "../helpers/gateway.js";
import type { ServerProcess } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";

// Keys limited to networks behind the documented Caddy setup (examples/Caddyfile): forward-auth reads
// the client's address from the X-Forwarded-For that Caddy writes, never from what the caller sends.
const examples = new URL("../../examples/", import.meta.url).pathname;

describeWithServices(["caddy"], "allowed_cidrs through a real Caddy", ({ caddy }) => {
  let upstream: EchoUpstream;
  let server: ServerProcess;
  let gateway: RunningCaddy;
  let owner: string;

  /** A key with every permission, limited to `allowed_cidrs`, made through latchkey's own API. */
  async function keyFrom(allowedCidrs: string[] | null): Promise<string> {
    const response = await fetch(`${server.baseUrl}/v1/api-keys`, {
      method: "POST",
      headers: { authorization: owner, "content-type": "application/json" },
      body: JSON.stringify({ permissions: [], all_future_permissions: true, allowed_cidrs: allowedCidrs }),
    });
    const key = (await response.json()) as { api_id: string; api_key: string };
    expect(response.status, JSON.stringify(key)).toBe(200);
    return basicAuth(key.api_id, key.api_key).authorization;
  }

  const viaGateway = (authorization: string, headers: Record<string, string> = {}) =>
    fetch(`${gateway.baseUrl}/v1/images`, { headers: { authorization, ...headers } });

  let stack: ExampleGateway;
  beforeAll(async () => {
    stack = await startExampleGateway(caddy, join(examples, "routes.json"));
    ({ server, upstream, gateway, owner } = stack);
  }, 90_000);

  afterAll(() => stack?.stop());

  test("a key allowed from the caller's network passes the gateway to the upstream", async () => {
    const before = upstream.received.length;
    const response = await viaGateway(await keyFrom(["127.0.0.0/8", "::1/128"]));
    expect(response.status).toBe(200);
    expect(upstream.received).toHaveLength(before + 1);
  });

  test("a key from elsewhere is refused at the gateway with 403 ip_not_allowed naming the caller's address", async () => {
    const before = upstream.received.length;
    const response = await viaGateway(await keyFrom(["203.0.113.0/24"]));
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      code: "ip_not_allowed",
      message: expect.stringContaining("127.0.0.1"),
    });
    expect(upstream.received).toHaveLength(before);
  });

  test("a caller that sends its own X-Forwarded-For cannot choose its address", async () => {
    const before = upstream.received.length;
    const auth = await keyFrom(["203.0.113.0/24"]);
    for (const forged of ["203.0.113.7", "203.0.113.7, 203.0.113.8"]) {
      const response = await viaGateway(auth, { "x-forwarded-for": forged });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { message: string }).message).toContain("127.0.0.1");
    }
    expect(upstream.received).toHaveLength(before);
  });

  test("a key without networks is used from anywhere", async () => {
    expect((await viaGateway(await keyFrom(null))).status).toBe(200);
  });
});
