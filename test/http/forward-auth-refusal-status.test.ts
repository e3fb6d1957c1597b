import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ownerApp } from "../helpers/build-test-app.js";
import { keyWith } from "../helpers/http-keys.js";
import { tempDir } from "../helpers/processes.js";

// nginx's auth_request relays only a 401 or 403 and drops the body: with X-Latchkey-Refusal-Status,
// every refusal comes back with that status, the real one and the body in headers.

async function setup() {
  const routes = join(tempDir(), "routes.json");
  writeFileSync(
    routes,
    JSON.stringify([{ method: "POST", path: "/v1/image", permission: "images:create", credits: 1 }]),
  );
  const { testApp, app, owner } = await ownerApp({
    env: { LATCHKEY_ROUTES: routes, LATCHKEY_DEFAULT_IMAGE_CREDITS: "1" },
  });
  const { token } = await testApp.services.serviceTokens.create("nginx");
  const ask = (headers: Record<string, string>, uri = "/v1/image") =>
    app.inject({
      url: "/v1/forward-auth",
      headers: {
        "x-latchkey-service-token": token,
        "x-forwarded-method": "POST",
        "x-forwarded-uri": uri,
        "x-latchkey-refusal-status": "403",
        ...headers,
      },
    });
  return { testApp, owner, ask };
}

test("a plan-limit 429 comes back as 403 with X-Latchkey-Status 429 and the error body in X-Latchkey-Error", async () => {
  const { owner, ask } = await setup();
  expect((await ask(owner.headers)).statusCode).toBe(200);
  const refused = await ask(owner.headers);
  expect(refused.statusCode).toBe(403);
  expect(refused.headers["x-latchkey-status"]).toBe("429");
  expect(refused.headers["x-renders-consumed"]).toBe("0");
  const error = JSON.parse(String(refused.headers["x-latchkey-error"]));
  expect(error).toMatchObject({ statusCode: 429, error: "Plan limit exceeded", code: "plan_limit_exceeded" });
  expect(refused.json()).toEqual(error);
});

test("an allowed request is unchanged: 200, no X-Latchkey-Status", async () => {
  const { owner, ask } = await setup();
  const allowed = await ask(owner.headers);
  expect(allowed.statusCode).toBe(200);
  expect(allowed.headers["x-latchkey-status"]).toBeUndefined();
  expect(allowed.headers["x-latchkey-organization-id"]).toBe(owner.orgId);
});

test("401, 403, 404 and the service token's 401 are relayed the same way", async () => {
  const { testApp, owner, ask } = await setup();
  const reader = await keyWith(testApp, owner, ["images:read"]);
  const cases: { headers: Record<string, string>; uri?: string; status: string; code: string }[] = [
    { headers: {}, status: "401", code: "unauthorized" },
    { headers: reader.headers, status: "403", code: "missing_permission" },
    { headers: owner.headers, uri: "/v1/other", status: "404", code: "no_route" },
    { headers: { "x-latchkey-service-token": "lkst_wrong" }, status: "401", code: "invalid_service_token" },
  ];
  for (const { headers, uri, status, code } of cases) {
    const refused = await ask(headers, uri);
    expect(refused.statusCode, code).toBe(403);
    expect(refused.headers["x-latchkey-status"], code).toBe(status);
    expect(JSON.parse(String(refused.headers["x-latchkey-error"])).code).toBe(code);
  }
  const unauthorized = await ask({});
  expect(unauthorized.headers["www-authenticate"]).toBe('Basic realm="latchkey", charset="UTF-8"');
});

test("a message with characters outside ASCII travels as JSON escapes, and parses back to itself", async () => {
  const { owner, ask } = await setup();
  // The path is refused, and its message names the character as it arrived.
  const refused = await ask(owner.headers, "/v1/café");
  expect(refused.headers["x-latchkey-status"]).toBe("400");
  const header = String(refused.headers["x-latchkey-error"]);
  expect(header).toMatch(/^[\x20-\x7e]+$/);
  expect(header).toContain("\\u00e9");
  expect(JSON.parse(header).message).toContain("a non-ASCII character ('é')");
});

test("a refusal status other than 401 or 403 is a 400 naming the header, relayed as it is", async () => {
  const { owner, ask } = await setup();
  const response = await ask({ ...owner.headers, "x-latchkey-refusal-status": "429" });
  expect(response.statusCode).toBe(400);
  expect(response.json()).toMatchObject({ code: "invalid_request" });
  expect(response.json().message).toContain("x-latchkey-refusal-status");
});
