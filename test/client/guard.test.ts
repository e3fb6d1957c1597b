import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { describe, expect, onTestFinished, test } from "vitest";
import type { LatchkeyClient } from "@latchkey/client";
import { decisionOf, type GuardOptions, latchkeyGuard, latchkeyNodeGuard } from "@latchkey/client/guard";
import { keyWith } from "../helpers/http-keys.js";
import { startRealServer } from "./real-server.js";

/**
 * The guard protecting a real platform service (Fastify, then plain node:http) in front of a real
 * latchkey server. The service has two routes: `POST /image` (images:create, 1 credit) and
 * `GET /proxies` (proxies:read, counted against proxy:read). Their handlers answer the organization
 * and key the guard exposed, and record that they ran.
 */

interface PlatformService {
  url: string;
  /** The routes whose handler ran, in order. */
  handled: string[];
  /** Errors the guard reported to onError. */
  errors: unknown[];
}

type Routes = Record<string, Pick<GuardOptions<object>, "permission" | "group" | "credits">>;
const ROUTES: Routes = {
  "POST /image": { permission: "images:create", credits: 1 },
  "GET /proxies": { permission: "proxies:read", group: "proxy:read" },
};

async function fastifyService(client: LatchkeyClient): Promise<PlatformService> {
  const service: Omit<PlatformService, "url"> = { handled: [], errors: [] };
  const app = Fastify();
  for (const [route, options] of Object.entries(ROUTES)) {
    const [method = "", url = ""] = route.split(" ");
    app.route({
      method,
      url,
      onRequest: latchkeyGuard({ client, ...options, onError: (error) => service.errors.push(error) }),
      handler: async (request) => {
        service.handled.push(route);
        const decision = decisionOf(request);
        return { organization_id: decision?.organization_id, key_id: decision?.key.id };
      },
    });
  }
  await app.listen({ port: 0, host: "127.0.0.1" });
  onTestFinished(() => app.close());
  return { ...service, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

async function nodeService(client: LatchkeyClient): Promise<PlatformService> {
  const service: Omit<PlatformService, "url"> = { handled: [], errors: [] };
  const guards = new Map(
    Object.entries(ROUTES).map(([route, options]) => [
      route,
      latchkeyNodeGuard({ client, ...options, onError: (error) => service.errors.push(error) }),
    ]),
  );
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a rejection here fails the run, as it should
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const route = `${req.method} ${req.url}`;
    const guard = guards.get(route);
    if (!guard) return res.writeHead(404).end();
    const decision = await guard(req, res);
    if (!decision) return;
    service.handled.push(route);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ organization_id: decision.organization_id, key_id: decisionOf(req)?.key.id }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { ...service, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const basic = (key: { apiId: string; secret: string }) =>
  `Basic ${Buffer.from(`${key.apiId}:${key.secret}`).toString("base64")}`;

async function call(service: PlatformService, route: string, authorization?: string) {
  const [method = "", path = ""] = route.split(" ");
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: authorization ? { authorization } : {},
  });
  const body = (await response.json()) as { message?: string; [member: string]: unknown };
  return { status: response.status, headers: response.headers, body };
}

async function setUp(build: (client: LatchkeyClient) => Promise<PlatformService>) {
  const server = await startRealServer();
  const owner = await server.owner();
  const service = await build(server.platformClient((await server.serviceToken()).token));
  return { server, service, owner, ownerAuth: basic(owner) };
}

describe.each([
  ["Fastify (onRequest hook)", fastifyService],
  ["node:http", nodeService],
])("the guard in %s", (_name, build) => {
  test("lets an allowed caller reach the handler with its organization and the decision's headers", async () => {
    const { service, owner, ownerAuth } = await setUp(build);
    const image = await call(service, "POST /image", ownerAuth);
    expect(image.status).toBe(200);
    expect(image.body).toEqual({ organization_id: owner.orgId, key_id: owner.id });
    expect(image.headers.get("x-renders-allowed")).toBe("50");
    expect(image.headers.get("x-renders-consumed")).toBe("1");
    expect(image.headers.get("x-renders-used")).toBe("1");

    const proxies = await call(service, "GET /proxies", ownerAuth);
    expect(proxies.status).toBe(200);
    expect(proxies.body).toEqual({ organization_id: owner.orgId, key_id: owner.id });
    expect(proxies.headers.get("ratelimit-policy")).toBe('"proxy:read";q=100;w=60');
    expect(proxies.headers.get("ratelimit")).toMatch(/^"proxy:read";r=99(;t=\d+)?$/);
    expect(service.handled).toEqual(["POST /image", "GET /proxies"]);
  });

  test("sends the caller's address, so a key limited to networks passes from inside and not from outside", async () => {
    const { server, service, owner } = await setUp(build);
    const inside = await keyWith(server.test, owner, ["images:create"], { allowed_cidrs: ["127.0.0.0/8"] });
    const outside = await keyWith(server.test, owner, ["images:create"], {
      allowed_cidrs: ["203.0.113.0/24"],
    });
    expect((await call(service, "POST /image", basic(inside))).status).toBe(200);
    const refused = await call(service, "POST /image", basic(outside));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: "ip_not_allowed",
      message: expect.stringContaining("127.0.0.1"),
    });
  });

  test("relays a 401 (no or wrong credentials) and a 403 (missing permission) with headers and body", async () => {
    const { server, service, owner } = await setUp(build);
    const anonymous = await call(service, "POST /image");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Basic realm="latchkey", charset="UTF-8"');
    expect(anonymous.headers.get("content-type")).toMatch(/^application\/json/);
    expect(anonymous.body).toMatchObject({ statusCode: 401, error: "Unauthorized", code: "unauthorized" });

    const wrong = await call(service, "POST /image", basic({ ...owner, secret: `${owner.secret}x` }));
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ code: "unauthorized" });

    const reader = await keyWith(server.test, owner, ["images:read"]);
    const lacking = await call(service, "POST /image", basic(reader));
    expect(lacking.status).toBe(403);
    expect(lacking.body).toMatchObject({ statusCode: 403, code: "missing_permission" });
    expect(lacking.body.message).toContain("images:create");
    expect(service.handled).toEqual([]);
    expect(service.errors).toEqual([]);
  });

  test("relays the group rate limit's 429 with Retry-After and RateLimit headers", async () => {
    const { server, service, owner, ownerAuth } = await setUp(build);
    await server.setQuota(owner.orgId, "proxy:read", 1);
    expect((await call(service, "GET /proxies", ownerAuth)).status).toBe(200);
    const limited = await call(service, "GET /proxies", ownerAuth);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("ratelimit-policy")).toBe('"proxy:read";q=1;w=60');
    expect(limited.headers.get("ratelimit")).toMatch(/^"proxy:read";r=0(;t=\d+)?$/);
    expect(limited.body).toMatchObject({ statusCode: 429, code: "rate_limited" });
    expect(limited.body.message).toContain("proxy:read");
    expect(service.handled).toEqual(["GET /proxies"]);
  });

  test("relays the plan limit's 429 with x-renders-* and no Retry-After", async () => {
    const { server, service, owner, ownerAuth } = await setUp(build);
    await server.test.services.plans.change(owner.orgId, { imageCredits: 1 });
    expect((await call(service, "POST /image", ownerAuth)).status).toBe(200);
    const spent = await call(service, "POST /image", ownerAuth);
    expect(spent.status).toBe(429);
    expect(spent.headers.get("retry-after")).toBeNull();
    expect(spent.headers.get("x-renders-allowed")).toBe("1");
    expect(spent.headers.get("x-renders-consumed")).toBe("0");
    expect(spent.headers.get("x-renders-used")).toBe("1");
    expect(spent.body).toMatchObject({
      statusCode: 429,
      error: "Plan limit exceeded",
      code: "plan_limit_exceeded",
    });
    expect(service.handled).toEqual(["POST /image"]);
  });

  test("answers 503 without reaching the handler when latchkey refuses the service token", async () => {
    const server = await startRealServer();
    const owner = await server.owner();
    const { id, token } = await server.serviceToken();
    const service = await build(server.platformClient(token));
    await server.test.services.serviceTokens.revoke(id);
    const refused = await call(service, "POST /image", basic(owner));
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({
      statusCode: 503,
      error: "Service Unavailable",
      message: "Authorization could not be checked right now; try again later.",
      code: "authorization_unavailable",
    });
    expect(service.errors).toEqual([expect.objectContaining({ status: 401, code: "invalid_service_token" })]);
    expect(service.handled).toEqual([]);
  });
});

test("as a Fastify preHandler, the guard can charge credits that depend on the parsed body", async () => {
  const server = await startRealServer();
  const owner = await server.owner();
  const client = server.platformClient((await server.serviceToken()).token);
  const app = Fastify();
  app.post<{ Body: { images: number } }>(
    "/batch",
    {
      preHandler: latchkeyGuard<{ body: { images: number }; headers: { authorization?: string } }>({
        client,
        permission: "images:create",
        credits: (request) => request.body.images,
      }),
    },
    async (request) => ({ made: request.body.images, organization_id: decisionOf(request)?.organization_id }),
  );
  await app.listen({ port: 0, host: "127.0.0.1" });
  onTestFinished(() => app.close());
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/batch`;
  const post = (images: number) =>
    fetch(url, {
      method: "POST",
      headers: { authorization: basic(owner), "content-type": "application/json" },
      body: JSON.stringify({ images }),
    });

  const made = await post(30);
  expect(made.status).toBe(200);
  expect(await made.json()).toEqual({ made: 30, organization_id: owner.orgId });
  expect(made.headers.get("x-renders-used")).toBe("30");
  const tooMany = await post(21);
  expect(tooMany.status).toBe(429);
  expect(await tooMany.json()).toMatchObject({ code: "plan_limit_exceeded" });
  expect(tooMany.headers.get("x-renders-used")).toBe("30");
});

test("the guard's cost takes that many slots in each window of its group, from the parsed body", async () => {
  const server = await startRealServer();
  await server.test.services.groups.put(
    "render",
    {
      policies: [
        { quota: 5, windowSeconds: 10 },
        { quota: 50, windowSeconds: 3600 },
      ],
      per: "organization",
    },
    "test",
  );
  const owner = await server.owner();
  const client = server.platformClient((await server.serviceToken()).token);
  const app = Fastify();
  app.post<{ Body: { images: number } }>(
    "/batch",
    {
      preHandler: latchkeyGuard<{ body: { images: number }; headers: { authorization?: string } }>({
        client,
        permission: "images:create",
        group: "render",
        cost: (request) => request.body.images,
      }),
    },
    async (request) => ({ made: request.body.images }),
  );
  await app.listen({ port: 0, host: "127.0.0.1" });
  onTestFinished(() => app.close());
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/batch`;
  const post = (images: number) =>
    fetch(url, {
      method: "POST",
      headers: { authorization: basic(owner), "content-type": "application/json" },
      body: JSON.stringify({ images }),
    });
  const made = await post(3);
  expect(made.status).toBe(200);
  expect(made.headers.get("ratelimit")).toBe('"render/10";r=2;t=10');
  // 3 of 5 held: a batch of 3 does not fit, and takes nothing; a batch of 2 does.
  expect((await post(3)).status).toBe(429);
  expect((await post(2)).status).toBe(200);
});
