import { expect, test } from "vitest";
import { buildTestApp } from "../helpers/build-test-app.js";

/** The access log: one line per request, at completion, with what an operator needs and no secret. */

const accessLines = (logs: string[]) =>
  logs.map((line) => JSON.parse(line)).filter((entry) => entry.msg === "request completed");

test("each request gets one line with its id, method, route, status, duration and organization", async () => {
  const testApp = await buildTestApp();
  const owner = await testApp.createOrganization();
  const read = await testApp.app.inject({ url: `/v1/api-keys/${owner.id}?x=1`, headers: owner.headers });
  const anonymous = await testApp.app.inject({ url: "/v1/api-keys" });
  const unknown = await testApp.app.inject({ url: "/nowhere" });

  const lines = accessLines(testApp.logs);
  expect(lines).toEqual([
    expect.objectContaining({
      level: 30,
      request_id: read.headers["x-request-id"],
      method: "GET",
      route: "/v1/api-keys/:id",
      status: 200,
      duration_ms: expect.any(Number),
      organization_id: owner.orgId,
    }),
    expect.objectContaining({
      request_id: anonymous.headers["x-request-id"],
      route: "/v1/api-keys",
      status: 401,
      organization_id: null,
    }),
    expect.objectContaining({ request_id: unknown.headers["x-request-id"], route: "unmatched", status: 404 }),
  ]);
  // Only these lines, and the warning about the refused (missing) credentials: Fastify's own
  // "incoming request" and "request completed" pairs are off.
  const others = testApp.logs
    .map((line) => JSON.parse(line).msg)
    .filter((msg) => msg !== "request completed");
  expect(others).toEqual([expect.stringContaining("credentials refused")]);
  // No header, URL or query string in them, so no credential either.
  for (const line of testApp.logs) {
    expect(line).not.toContain(owner.secret);
    expect(line).not.toContain(owner.headers.authorization.slice("Basic ".length));
    expect(line).not.toContain("x=1");
  }
});

test("authorize's line names the organization of the key it decided on", async () => {
  const testApp = await buildTestApp();
  const owner = await testApp.createOrganization();
  const { token } = await testApp.services.serviceTokens.create("platform");
  const ask = (permission: string) =>
    testApp.app.inject({
      method: "POST",
      url: "/v1/authorize",
      headers: { "x-latchkey-service-token": token },
      payload: { authorization: owner.headers.authorization, permission },
    });
  expect((await ask("images:create")).json()).toMatchObject({ allowed: true });
  const lines = accessLines(testApp.logs);
  expect(lines).toEqual([
    expect.objectContaining({ route: "/v1/authorize", status: 200, organization_id: owner.orgId }),
  ]);
  expect(testApp.logs.join("\n")).not.toContain(token);
});

test("LATCHKEY_ACCESS_LOG=off, or a level above info, writes no line per request", async () => {
  const settings: Record<string, string>[] = [{ LATCHKEY_ACCESS_LOG: "off" }, { LATCHKEY_LOG_LEVEL: "warn" }];
  for (const env of settings) {
    const testApp = await buildTestApp({ env });
    const owner = await testApp.createOrganization();
    const response = await testApp.app.inject({ url: `/v1/api-keys/${owner.id}`, headers: owner.headers });
    expect(response.statusCode).toBe(200);
    expect(await testApp.app.inject({ url: "/nowhere" })).toMatchObject({ statusCode: 404 });
    expect(testApp.logs).toEqual([]);
  }
});
