import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  type EchoedRequest,
  type EchoUpstream,
  type RunningCaddy,
  startCaddy,
  startEchoUpstream,
} from "../helpers/gateway.js";
import { latchkey, type ServerProcess, startSuiteServer } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";
import { describeWithServices } from "../helpers/services.js";

// The documented setup, for real: examples/Caddyfile (and the short forward_auth form) run by the
// machine's `caddy`, in front of an echo upstream and `node dist/main.js` with examples/routes.json.
const examples = new URL("../../examples/", import.meta.url).pathname;

interface Organization {
  id: string;
  /** The owner's `Authorization` header. */
  owner: string;
}

const basic = (apiId: string, secret: string) =>
  `Basic ${Buffer.from(`${apiId}:${secret}`).toString("base64")}`;

describeWithServices(["caddy"], "a real Caddy in front of latchkey and a platform service", ({ caddy }) => {
  let dir: string;
  let upstream: EchoUpstream;
  let server: ServerProcess;
  let gateway: RunningCaddy;
  let shortGateway: RunningCaddy;
  /** Plenty of credits; `proxy:read` allows one request per window. */
  let acme: Organization;
  /** One image credit per billing period. */
  let tiny: Organization;

  async function createOrganization(env: Record<string, string>, name: string): Promise<Organization> {
    const { organization, key } = JSON.parse(
      (await latchkey(["org", "create", "--name", name, "--json"], env)).stdout,
    );
    return { id: organization.id, owner: basic(key.api_id, key.api_key) };
  }

  /** A key of `org` holding exactly `permissions`, made through latchkey's own API. */
  async function keyOf(org: Organization, permissions: string[]): Promise<{ id: string; auth: string }> {
    const response = await fetch(`${server.baseUrl}/v1/api-keys`, {
      method: "POST",
      headers: { authorization: org.owner, "content-type": "application/json" },
      body: JSON.stringify({ name: `holds ${permissions.join(" ")}`, permissions }),
    });
    const key = (await response.json()) as { id: string; api_id: string; api_key: string };
    expect(response.status, JSON.stringify(key)).toBe(200);
    return { id: key.id, auth: basic(key.api_id, key.api_key) };
  }

  /** The request the upstream received last, after checking that it received exactly `count` so far. */
  function lastReceived(count: number): EchoedRequest | undefined {
    expect(upstream.received).toHaveLength(count);
    return upstream.received.at(-1);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "latchkey-gateway-"));
    const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "latchkey.db")}` };
    acme = await createOrganization(env, "acme");
    tiny = await createOrganization(env, "tiny");
    await latchkey(["org", "plan", "--org", tiny.id, "--image-credits", "1"], env);
    await latchkey(["org", "limits", "--org", acme.id, "--group", "proxy:read", "--quota", "1"], env);
    const token = JSON.parse(
      (await latchkey(["service-token", "create", "--name", "caddy", "--json"], env)).stdout,
    ).token;

    upstream = await startEchoUpstream();
    server = await startSuiteServer(
      { ...env, LATCHKEY_ROUTES: join(examples, "routes.json"), LATCHKEY_BOOTSTRAP: "off" },
      await freePort(),
    );
    const gatewayEnv = {
      LATCHKEY_ADDRESS: new URL(server.baseUrl).host,
      UPSTREAM_ADDRESS: upstream.address,
      LATCHKEY_SERVICE_TOKEN: token,
    };
    gateway = await startCaddy(caddy, join(examples, "Caddyfile"), gatewayEnv, join(dir, "caddy"));
    shortGateway = await startCaddy(
      caddy,
      join(examples, "Caddyfile.forward_auth"),
      gatewayEnv,
      join(dir, "caddy-short"),
    );
  }, 90_000);

  afterAll(async () => {
    await gateway?.stop();
    await shortGateway?.stop();
    server?.child.kill("SIGKILL");
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("an allowed request reaches the upstream, body intact, with the organization and key; the caller sees its credits", async () => {
    const { id, auth } = await keyOf(acme, ["images:create"]);
    const before = upstream.received.length;
    const response = await fetch(`${gateway.baseUrl}/v1/image?size=large`, {
      method: "POST",
      headers: {
        authorization: auth,
        "content-type": "application/json",
        // A caller cannot pass itself off as another organization, nor forward a service token.
        "x-latchkey-organization-id": "org_forged",
        "x-latchkey-key-id": "key_forged",
        "x-latchkey-service-token": "lkst_forged",
      },
      body: '{"prompt": "a lighthouse"}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-renders-allowed")).toBe("50");
    expect(response.headers.get("x-renders-consumed")).toBe("1");
    expect(response.headers.get("x-renders-used")).toBe("1");
    expect(response.headers.get("ratelimit")).toBeNull();

    const received = lastReceived(before + 1);
    expect(received).toMatchObject({ method: "POST", url: "/v1/image?size=large" });
    expect(received?.body).toBe('{"prompt": "a lighthouse"}');
    expect(received?.headers["x-latchkey-organization-id"]).toBe(acme.id);
    expect(received?.headers["x-latchkey-key-id"]).toBe(id);
    expect(received?.headers["x-latchkey-service-token"]).toBeUndefined();
    expect(await response.json()).toMatchObject({ method: "POST" });
  });

  test("without credentials the caller gets latchkey's 401 body and WWW-Authenticate; the upstream sees nothing", async () => {
    const before = upstream.received.length;
    const response = await fetch(`${gateway.baseUrl}/v1/image`, { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Basic realm="latchkey", charset="UTF-8"');
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      message: expect.any(String),
      code: "unauthorized",
    });
    lastReceived(before);
  });

  test("a key without the route's permission gets 403 missing_permission naming it", async () => {
    const { auth } = await keyOf(acme, ["images:read"]);
    const before = upstream.received.length;
    const response = await fetch(`${gateway.baseUrl}/v1/image`, {
      method: "POST",
      // Caddy, not the caller, describes the original request to latchkey.
      headers: { authorization: auth, "x-forwarded-uri": "/v1/images/img_1", "x-forwarded-method": "GET" },
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { message: string };
    expect(body).toMatchObject({ statusCode: 403, code: "missing_permission" });
    expect(body.message).toContain("images:create");
    lastReceived(before);
  });

  test("a group's used-up allowance is 429 rate_limited with Retry-After; the admitted request shows RateLimit", async () => {
    const { auth } = await keyOf(acme, ["proxies:read"]);
    const before = upstream.received.length;
    const first = await fetch(`${gateway.baseUrl}/v1/proxies/prx_1`, { headers: { authorization: auth } });
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toBe('"proxy:read";q=1;w=60');
    expect(first.headers.get("ratelimit")).toMatch(/^"proxy:read";r=0;t=\d+$/);
    expect(first.headers.get("x-renders-allowed")).toBeNull();

    const second = await fetch(`${gateway.baseUrl}/v1/proxies/prx_1`, { headers: { authorization: auth } });
    expect(second.status).toBe(429);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(second.headers.get("ratelimit")).toMatch(/^"proxy:read";r=0;t=\d+$/);
    const body = (await second.json()) as { message: string };
    expect(body).toMatchObject({ statusCode: 429, error: "Too Many Requests", code: "rate_limited" });
    expect(body.message).toContain("proxy:read");
    lastReceived(before + 1);
  });

  test("used-up image credits are 429 plan_limit_exceeded, with x-renders headers and no Retry-After", async () => {
    const { auth } = await keyOf(tiny, ["images:create"]);
    const before = upstream.received.length;
    const first = await fetch(`${gateway.baseUrl}/v1/image`, {
      method: "POST",
      headers: { authorization: auth },
    });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-renders-used")).toBe("1");

    const second = await fetch(`${gateway.baseUrl}/v1/image`, {
      method: "POST",
      headers: { authorization: auth },
    });
    expect(second.status).toBe(429);
    expect(second.headers.get("retry-after")).toBeNull();
    expect(second.headers.get("x-renders-allowed")).toBe("1");
    expect(second.headers.get("x-renders-consumed")).toBe("0");
    expect(second.headers.get("x-renders-used")).toBe("1");
    expect(await second.json()).toMatchObject({
      statusCode: 429,
      error: "Plan limit exceeded",
      code: "plan_limit_exceeded",
    });
    lastReceived(before + 1);
  });

  test("a request no route matches is 404 no_route, whoever sends it", async () => {
    const before = upstream.received.length;
    const response = await fetch(`${gateway.baseUrl}/v1/admin/secrets`, {
      headers: { authorization: acme.owner },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ statusCode: 404, code: "no_route" });
    lastReceived(before);
  });

  test("the short forward_auth form passes the organization and key on, and latchkey's 401 back", async () => {
    const { id, auth } = await keyOf(acme, ["images:read"]);
    const before = upstream.received.length;
    const allowed = await fetch(`${shortGateway.baseUrl}/v1/images/img_1`, {
      headers: { authorization: auth, "x-latchkey-organization-id": "org_forged" },
    });
    expect(allowed.status).toBe(200);
    const received = lastReceived(before + 1);
    expect(received?.headers["x-latchkey-organization-id"]).toBe(acme.id);
    expect(received?.headers["x-latchkey-key-id"]).toBe(id);

    const refused = await fetch(`${shortGateway.baseUrl}/v1/images/img_1`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Basic realm="latchkey", charset="UTF-8"');
    expect(await refused.json()).toMatchObject({ code: "unauthorized" });
    lastReceived(before + 1);
  });
});
