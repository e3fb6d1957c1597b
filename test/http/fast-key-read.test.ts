import type { AddressInfo } from "node:net";
import { expect, test } from "vitest";
import { buildTestApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { keyWith, UNKNOWN_KEY_ID } from "../helpers/http-keys.js";
import { sampleValue } from "../helpers/metrics-page.js";

// `GET /v1/api-keys/{id}` is answered in front of Fastify when it succeeds (src/http/fast-key-read.ts),
// which only real sockets reach (`inject` goes to Fastify directly). These pin that a client cannot tell
// the two apart; test/http/fast-key-read-front.test.ts pins which requests take which way.

interface Served {
  testApp: TestApp;
  owner: TestKey;
  get(path: string, key: TestKey): Promise<Response>;
}

async function served(level = "warn"): Promise<Served> {
  const testApp = await buildTestApp({ env: { LATCHKEY_LOG_LEVEL: level } });
  await testApp.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = testApp.app.server.address() as AddressInfo;
  const owner = await testApp.createOrganization();
  return {
    testApp,
    owner,
    get: (path, key) => fetch(`http://127.0.0.1:${port}${path}`, { headers: key.headers }),
  };
}

/** What a client sees of a response, with the values that differ per request set aside. */
async function seen(response: Response) {
  const headers = Object.fromEntries(
    [...response.headers].filter(([name]) => !["date", "x-request-id", "ratelimit"].includes(name)),
  );
  return { status: response.status, headers, body: await response.text() };
}

/** The `r=` (remaining) of a response's RateLimit header. */
function remaining(response: Response): number {
  return Number(/;r=(\d+);/.exec(response.headers.get("ratelimit") ?? "")?.[1]);
}

test("a read answered in front of Fastify is the one Fastify answers: status, headers and body", async () => {
  const { owner, get } = await served();
  const path = `/v1/api-keys/${owner.id}`;
  const first = await get(path, owner); // the first use: the key's last use is recorded
  const front = await get(path, owner);
  // A query string is not the front's (it matches only the bare path): Fastify answers this one.
  const fastify = await get(`${path}?via=fastify`, owner);

  const [seenFirst, seenFront, seenFastify] = [await seen(first), await seen(front), await seen(fastify)];
  expect(front.status).toBe(200);
  expect(seenFront).toEqual(seenFastify);
  expect(seenFirst).toEqual(seenFastify);
  expect(front.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  expect(front.headers.get("x-request-id")).not.toBe(fastify.headers.get("x-request-id"));
  expect(Object.keys(seenFront.headers).sort()).toEqual(
    [
      "cache-control",
      "connection",
      "content-length",
      "content-type",
      "keep-alive",
      "ratelimit-policy",
    ].sort(),
  );
});

test("every request is counted once against its group, answered in front or handed to Fastify", async () => {
  const { testApp, owner, get } = await served();
  const reader = await keyWith(testApp, owner, ["images:read"]);
  const path = `/v1/api-keys/${owner.id}`;
  const statuses: number[] = [];
  const remainders: number[] = [];
  for (const [url, key] of [
    [path, owner], // 200, in front
    [path, owner], // 200, in front
    [`/v1/api-keys/${UNKNOWN_KEY_ID}`, owner], // 404: admitted by the limiter, then not found
    [path, reader], // 403 missing_permission: refused before the limiter, no slot taken
    [path, owner], // 200, in front
  ] as const) {
    const response = await get(url, key);
    statuses.push(response.status);
    remainders.push(remaining(response));
  }
  expect(statuses).toEqual([200, 200, 404, 403, 200]);
  // The read group's default quota is 100; the 403 carries no RateLimit header (NaN).
  expect(remainders).toEqual([99, 98, 97, Number.NaN, 96]);
});

test("over its quota, a read is refused with the 429 and headers Fastify's route gives", async () => {
  const { testApp, owner, get } = await served();
  await testApp.services.store.setQuota(owner.orgId, "api-key:read", 2);
  const path = `/v1/api-keys/${owner.id}`;
  expect((await get(path, owner)).status).toBe(200);
  expect((await get(path, owner)).status).toBe(200);
  const refused = await get(path, owner);
  expect(refused.status).toBe(429);
  expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(refused.headers.get("ratelimit")).toMatch(/^"api-key:read";r=0;t=\d+$/);
  expect(refused.headers.get("cache-control")).toBe("no-store");
  expect(await refused.json()).toMatchObject({ statusCode: 429, code: "rate_limited" });
});

test("a change through the API is served by the very next read in front: update, disable", async () => {
  const { testApp, owner, get } = await served();
  const key = await keyWith(testApp, owner, ["api_keys:read"]);
  const path = `/v1/api-keys/${key.id}`;
  await get(path, key);
  expect(await (await get(path, key)).json()).toMatchObject({ name: expect.not.stringMatching("renamed") });

  const base = `http://127.0.0.1:${(testApp.app.server.address() as AddressInfo).port}`;
  const change = (method: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { ...owner.headers, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  expect((await change("POST", { name: "renamed", permissions: ["api_keys:read"] })).status).toBe(200);
  expect(await (await get(path, key)).json()).toMatchObject({ name: "renamed" });
  expect((await change("DELETE")).status).toBe(204);
  const refused = await get(path, key);
  expect(refused.status).toBe(401);
  expect(refused.headers.get("www-authenticate")).toMatch(/^Basic /);
});

test("reads answered in front are counted on /metrics like every other response", async () => {
  const { testApp, owner, get } = await served();
  const path = `/v1/api-keys/${owner.id}`;
  for (let i = 0; i < 5; i++) expect((await get(path, owner)).status).toBe(200);
  const page = (await testApp.app.inject({ method: "GET", url: "/metrics" })).body;
  const labels = { method: "GET", route: "/v1/api-keys/:id", status: "200" };
  expect(sampleValue(page, "latchkey_http_requests_total", labels)).toBe(5);
  expect(sampleValue(page, "latchkey_http_request_duration_seconds_count", labels)).toBe(5);
  expect(sampleValue(page, "latchkey_access_decisions_total", { surface: "rest", outcome: "allowed" })).toBe(
    5,
  );
});

test("at log level info, where every request is logged, Fastify answers and logs every read", async () => {
  const { testApp, owner, get } = await served("info");
  const path = `/v1/api-keys/${owner.id}`;
  for (let i = 0; i < 3; i++) expect((await get(path, owner)).status).toBe(200);
  const completed = testApp.logs
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === "request completed" && entry.res?.statusCode === 200);
  expect(completed).toHaveLength(3);
});
