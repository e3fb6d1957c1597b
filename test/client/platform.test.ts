import { expect, test } from "vitest";
import { LatchkeyError } from "@latchkey/client";
import { keyWith } from "../helpers/http-keys.js";
import { oneCharacterOff } from "../helpers/near-secret.js";
import { startRealServer } from "./real-server.js";

/** The client's platform calls against a real server over HTTP: usage.get() and authorize(). */

const basic = (key: { apiId: string; secret: string }) =>
  `Basic ${Buffer.from(`${key.apiId}:${key.secret}`).toString("base64")}`;

test("authorize allows a caller with the permission, consumes the credit and says so in x-renders-*", async () => {
  const server = await startRealServer();
  const owner = await server.owner();
  const creator = await keyWith(server.test, owner, ["images:create"]);
  const platform = server.platformClient((await server.serviceToken()).token);

  const decision = await platform.authorize({
    authorization: basic(creator),
    permission: "images:create",
    credits: 1,
  });
  expect(decision).toEqual({
    allowed: true,
    status: 200,
    organization_id: owner.orgId,
    key: {
      id: creator.id,
      api_id: creator.apiId,
      permissions: ["images:create"],
      all_future_permissions: false,
    },
    headers: { "x-renders-allowed": "50", "x-renders-consumed": "1", "x-renders-used": "1" },
    error: null,
  });
});

test("authorize answers a refusal as a decision (401, 403, plan-limit 429), never as an error", async () => {
  const server = await startRealServer();
  const owner = await server.owner();
  const reader = await keyWith(server.test, owner, ["images:read"]);
  const platform = server.platformClient((await server.serviceToken()).token);

  const anonymous = await platform.authorize({ authorization: undefined, permission: "images:create" });
  expect(anonymous).toMatchObject({ allowed: false, status: 401, organization_id: null, key: null });
  expect(anonymous.headers["WWW-Authenticate"]).toBe('Basic realm="latchkey", charset="UTF-8"');
  expect(anonymous.error).toMatchObject({ statusCode: 401, code: "unauthorized" });

  const lacking = await platform.authorize({ authorization: basic(reader), permission: "images:create" });
  expect(lacking).toMatchObject({ allowed: false, status: 403, organization_id: owner.orgId });
  expect(lacking.error).toMatchObject({ code: "missing_permission" });
  expect(lacking.error?.message).toContain("images:create");

  await server.test.services.plans.change(owner.orgId, { imageCredits: 1 });
  const first = await platform.authorize({
    authorization: basic(owner),
    permission: "images:create",
    credits: 1,
  });
  expect(first.allowed).toBe(true);
  const spent = await platform.authorize({
    authorization: basic(owner),
    permission: "images:create",
    credits: 1,
  });
  expect(spent).toMatchObject({ allowed: false, status: 429 });
  expect(spent.error).toMatchObject({ code: "plan_limit_exceeded", error: "Plan limit exceeded" });
  expect(spent.headers).toEqual({
    "x-renders-allowed": "1",
    "x-renders-consumed": "0",
    "x-renders-used": "1",
  });
});

test("authorize throws LatchkeyError for a wrong, revoked or customer token, and for a bad body", async () => {
  const server = await startRealServer();
  const owner = await server.owner();
  const { id, token } = await server.serviceToken();
  const request = { authorization: basic(owner), permission: "images:create" } as const;

  const refusedWith = async (serviceToken: string) =>
    server
      .platformClient(serviceToken)
      .authorize(request)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
  for (const wrong of [oneCharacterOff(token), owner.secret]) {
    const error = await refusedWith(wrong);
    expect(error).toBeInstanceOf(LatchkeyError);
    expect(error).toMatchObject({ status: 401, code: "invalid_service_token" });
  }
  expect((await server.platformClient(token).authorize(request)).allowed).toBe(true);
  await server.test.services.serviceTokens.revoke(id);
  expect(await refusedWith(token)).toMatchObject({ status: 401, code: "invalid_service_token" });

  const { token: fresh } = await server.serviceToken();
  const badPermission = await server
    .platformClient(fresh)
    .authorize({ ...request, permission: "images:paint" })
    .catch((error: unknown) => error);
  expect(badPermission).toMatchObject({ status: 400, code: "invalid_request" });
  expect((badPermission as Error).message).toContain("images:paint");
  const badCredits = await server
    .platformClient(fresh)
    .authorize({ ...request, credits: 0 })
    .catch((error: unknown) => error);
  expect(badCredits).toMatchObject({ status: 400, code: "invalid_request" });
});

test("usage.get returns what the organization consumed, by hour, day, month and billing period", async () => {
  const server = await startRealServer();
  const owner = await server.owner();
  const platform = server.platformClient((await server.serviceToken()).token);
  for (const credits of [2, 3]) {
    const decision = await platform.authorize({
      authorization: basic(owner),
      permission: "images:create",
      credits,
    });
    expect(decision.allowed).toBe(true);
  }
  const usageReader = await keyWith(server.test, owner, ["usage:read"]);

  const report = await server.clientFor(usageReader).usage.get();
  const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  // The two requests may straddle an hour (or day) boundary on a slow machine: compare totals.
  expect(sum(report.data.hour)).toBe(5);
  for (const hour of Object.keys(report.data.hour)) expect(hour).toMatch(/T\d\d:00:00\.000Z$/);
  expect(sum(report.data.day)).toBe(5);
  expect(sum(report.data.month)).toBe(5);
  expect(report.per_billing_period).toHaveLength(1);
  expect(report.per_billing_period[0]).toMatchObject({ total_images: 5 });
  const { start, end } = report.per_billing_period[0] ?? { start: "", end: "" };
  expect(Date.parse(start)).toBeLessThanOrEqual(Date.now());
  expect(Date.parse(end)).toBeGreaterThan(Date.now());

  const lacking = await keyWith(server.test, owner, ["images:read"]);
  await expect(server.clientFor(lacking).usage.get()).rejects.toMatchObject({
    status: 403,
    code: "missing_permission",
  });
});

test("a client says which option a call needs instead of sending a request without credentials", async () => {
  const server = await startRealServer();
  const owner = await server.owner();
  const platformOnly = server.platformClient((await server.serviceToken()).token);
  await expect(platformOnly.usage.get()).rejects.toThrow(/apiId and apiKey/);
  const keysOnly = server.clientFor(owner);
  await expect(keysOnly.authorize({ authorization: null, permission: "images:create" })).rejects.toThrow(
    /serviceToken/,
  );
  expect(() => server.platformClient("")).toThrow(/serviceToken/);
});
