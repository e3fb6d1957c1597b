import type { AddressInfo } from "node:net";
import { expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { sampleValue } from "../helpers/metrics-page.js";
import { creditsUsed, type PlatformApp, platformApp } from "../helpers/platform.js";

// `POST /v1/authorize` is answered in front of Fastify when its token and body are valid
// (src/http/fast-authorize.ts), which only real sockets reach (`inject` goes to Fastify directly).
// These pin that a platform cannot tell the two apart; fast-authorize-front.test.ts pins which requests
// take which way.

interface Served extends PlatformApp {
  /** One authorize over a socket; `?via=fastify` is not the front's (it matches only the bare path). */
  post(body: string, options?: { path?: string; token?: string; contentType?: string }): Promise<Response>;
}

async function served(level = "warn"): Promise<Served> {
  const platform = await platformApp({ env: { LATCHKEY_LOG_LEVEL: level } });
  const { app } = platform.testApp;
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as AddressInfo;
  return {
    ...platform,
    post: (body, { path = "/v1/authorize", token = platform.serviceToken, contentType } = {}) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: "POST",
        headers: {
          "content-type": contentType ?? "application/json",
          "x-latchkey-service-token": token,
        },
        body,
      }),
  };
}

/** What a platform sees of an answer, with the values that differ per request set aside. */
async function seen(response: Response) {
  const headers = Object.fromEntries(
    [...response.headers].filter(([name]) => !["date", "x-request-id"].includes(name)),
  );
  const body = (await response.json()) as { headers?: Record<string, string> };
  // The decision's RateLimit and credits used count from request to request.
  if (body.headers?.RateLimit) body.headers.RateLimit = body.headers.RateLimit.replace(/;r=\d+/, ";r=*");
  if (body.headers?.["x-renders-used"]) body.headers["x-renders-used"] = "*";
  return { status: response.status, headers, body };
}

test("decisions answered in front of Fastify are the ones Fastify answers: status, headers, body", async () => {
  const { owner, post } = await served();
  const wrongSecret = basicAuth(owner.apiId, "lksk_wrong").authorization;
  for (const question of [
    { authorization: owner.headers.authorization, permission: "images:create" },
    { authorization: owner.headers.authorization, permission: "proxies:read", group: "proxy:read" },
    { authorization: owner.headers.authorization, permission: "images:create", credits: 2 },
    { authorization: owner.headers.authorization, permission: "images:create", protocol: "mcp" },
    { authorization: wrongSecret, permission: "images:create", group: "proxy:read" },
    { authorization: null, permission: "images:create" },
  ]) {
    const body = JSON.stringify(question);
    const front = await post(body);
    const fastify = await post(body, { path: "/v1/authorize?via=fastify" });
    expect(front.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const [seenFront, seenFastify] = [await seen(front), await seen(fastify)];
    expect({ question, ...seenFront }).toEqual({ question, ...seenFastify });
    expect(seenFront.status).toBe(200);
  }
});

test("a request the route refuses is refused alike, after the front read its body", async () => {
  const { owner, post } = await served();
  const valid = { authorization: owner.headers.authorization, permission: "images:create" };
  for (const [label, body, token] of [
    ["unknown service token", JSON.stringify(valid), `lkst_${"0".repeat(36)}`],
    // The token is checked before the body is read (DESIGN.md: a wrong token is a 401, never a 400).
    ["unknown service token and a body that is not JSON", "{authorization:", `lkst_${"0".repeat(36)}`],
    ["not JSON", "{authorization:", undefined],
    ["an empty object", "{}", undefined],
    ["an unknown permission", JSON.stringify({ ...valid, permission: "images:fly" }), undefined],
    ["an unknown group", JSON.stringify({ ...valid, group: "nope" }), undefined],
    ["credits of 0", JSON.stringify({ ...valid, credits: 0 }), undefined],
    ["a member too many", JSON.stringify({ ...valid, extra: 1 }), undefined],
    [
      "a poisoned prototype",
      `{"__proto__":{"x":1},"authorization":null,"permission":"images:create"}`,
      undefined,
    ],
    ["JSON null", "null", undefined],
  ] as const) {
    const options = token === undefined ? {} : { token };
    const front = await seen(await post(body, options));
    const fastify = await seen(await post(body, { ...options, path: "/v1/authorize?via=fastify" }));
    expect({ label, ...front }).toEqual({ label, ...fastify });
    expect({ label, status: front.status }).toEqual({ label, status: token ? 401 : 400 });
  }
});

test("each request takes one rate-limit slot and its credits once, whichever path answers it", async () => {
  const { testApp, owner, post } = await served();
  const ask = (path?: string) =>
    post(
      JSON.stringify({
        authorization: owner.headers.authorization,
        permission: "images:create",
        group: "proxy:read",
        credits: 3,
      }),
      path ? { path } : {},
    );
  const remainders: string[] = [];
  for (const path of [undefined, undefined, "/v1/authorize?via=fastify", undefined]) {
    const decision = (await (await ask(path)).json()) as {
      allowed: boolean;
      headers: Record<string, string>;
    };
    expect(decision.allowed).toBe(true);
    remainders.push(/;r=(\d+);/.exec(decision.headers.RateLimit ?? "")?.[1] ?? "none");
  }
  expect(remainders).toEqual(["99", "98", "97", "96"]);
  expect(await creditsUsed(testApp, owner.orgId)).toBe(12);
});

test("decisions answered in front are counted on /metrics like every other response", async () => {
  const { testApp, owner, post } = await served();
  const body = JSON.stringify({ authorization: owner.headers.authorization, permission: "images:create" });
  for (let i = 0; i < 4; i++) expect((await post(body)).status).toBe(200);
  const page = (await testApp.app.inject({ method: "GET", url: "/metrics" })).body;
  const labels = { method: "POST", route: "/v1/authorize", status: "200" };
  expect(sampleValue(page, "latchkey_http_requests_total", labels)).toBe(4);
  expect(sampleValue(page, "latchkey_http_request_duration_seconds_count", labels)).toBe(4);
  expect(
    sampleValue(page, "latchkey_access_decisions_total", { surface: "authorize", outcome: "allowed" }),
  ).toBe(4);
});

test("at log level info, where every request is logged, Fastify answers and logs every authorize", async () => {
  const { testApp, owner, post } = await served("info");
  const body = JSON.stringify({ authorization: owner.headers.authorization, permission: "images:create" });
  for (let i = 0; i < 3; i++) expect((await post(body)).status).toBe(200);
  const completed = testApp.logs
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === "request completed" && entry.res?.statusCode === 200);
  expect(completed).toHaveLength(3);
});
