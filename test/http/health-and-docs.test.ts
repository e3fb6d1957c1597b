import { expect, test } from "vitest";
import { buildTestApp } from "../helpers/build-test-app.js";

/** The unauthenticated endpoints: liveness, readiness, the OpenAPI document and its browsable reference. */

test("/healthz answers 200 without credentials", async () => {
  const { app } = await buildTestApp();
  const response = await app.inject({ method: "GET", url: "/healthz" });
  expect(response.statusCode).toBe(200);
  expect(response.json()).toEqual({ status: "ok" });
});

test("/readyz answers 200 with status ok over a reachable database and limiter", async () => {
  const { app } = await buildTestApp();
  const response = await app.inject({ method: "GET", url: "/readyz" });
  expect(response.statusCode).toBe(200);
  expect(response.json()).toMatchObject({ status: "ok", database: "ok", rate_limiter: "ok" });
});

test("/readyz answers 503 when the database cannot be reached", async () => {
  const testApp = await buildTestApp();
  testApp.services.store.ping = async () => {
    throw new Error("connection refused");
  };
  const response = await testApp.app.inject({ method: "GET", url: "/readyz" });
  expect(response.statusCode).toBe(503);
  expect(response.json()).toMatchObject({ database: "unreachable" });
  expect(response.body).not.toContain("connection refused");
});

test("GET / sends a browser to the console and gives a program the links; the favicon is served", async () => {
  const { app } = await buildTestApp();
  const browser = await app.inject({ method: "GET", url: "/", headers: { accept: "text/html,*/*;q=0.8" } });
  expect(browser.statusCode).toBe(302);
  expect(browser.headers.location).toBe("/console");
  const program = await app.inject({ method: "GET", url: "/" });
  expect(program.statusCode).toBe(200);
  expect(program.json()).toMatchObject({
    name: "latchkey",
    links: { console: "/console", api: "/v1", docs: "/docs", openapi: "/openapi.json", health: "/healthz" },
  });
  for (const url of ["/favicon.ico", "/favicon.svg"]) {
    const icon = await app.inject({ method: "GET", url });
    expect(icon.statusCode, url).toBe(200);
    expect(icon.headers["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(icon.body).toMatch(/^<svg /);
  }
});

test("without the console, GET / sends a browser to the API reference", async () => {
  const { app } = await buildTestApp({ env: { LATCHKEY_CONSOLE: "off" } });
  const browser = await app.inject({ method: "GET", url: "/", headers: { accept: "text/html" } });
  expect(browser.headers.location).toBe("/docs");
  expect((await app.inject({ method: "GET", url: "/" })).json().links.console).toBeUndefined();
});

test("/openapi.json is an OpenAPI 3.1 document of every key operation", async () => {
  const { app } = await buildTestApp();
  const response = await app.inject({ method: "GET", url: "/openapi.json" });
  expect(response.statusCode).toBe(200);
  const document = response.json();
  expect(document.openapi).toMatch(/^3\.1\./);
  expect(Object.keys(document.paths["/v1/api-keys"] ?? {}).sort()).toEqual(["get", "post"]);
  expect(Object.keys(document.paths["/v1/api-keys/{id}"] ?? {}).sort()).toEqual(["delete", "get", "post"]);
  expect(Object.keys(document.paths["/v1/api-keys/{id}/roll"] ?? {})).toEqual(["post"]);
  expect(document.components.securitySchemes).toMatchObject({ basicAuth: { type: "http", scheme: "basic" } });
  const create = document.paths["/v1/api-keys"].post;
  expect(create.security).toEqual([{ basicAuth: [] }]);
  expect(create.requestBody.content["application/json"].schema).toEqual({
    $ref: "#/components/schemas/ApiKeyRequest",
  });
  expect(Object.keys(document.components.schemas.ApiKeyRequest.properties).sort()).toEqual(
    [
      "all_future_permissions",
      "allowed_cidrs",
      "description",
      "disabled",
      "expires_at",
      "metadata",
      "name",
      "permissions",
      "rate_limits",
    ].sort(),
  );
  // Each operation documents the status it answers with.
  expect(Object.keys(document.paths["/v1/api-keys/{id}"].delete.responses)).toEqual(
    expect.arrayContaining(["204", "401", "403", "404", "429"]),
  );
  expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["200", "400", "409", "415", "429"]));
  expect(create.responses["409"].content["application/json"].examples.key_quota_exceeded.value).toMatchObject(
    {
      statusCode: 409,
      code: "key_quota_exceeded",
    },
  );
  expect(document.components.schemas.ErrorBody.properties.code.enum).toContain("key_quota_exceeded");
  // Health endpoints and the 405 catch-alls are not part of the published interface.
  expect(Object.keys(document.paths)).not.toContain("/healthz");
  expect(document.paths["/v1/api-keys"].put).toBeUndefined();
});

test("/docs serves an HTML reference", async () => {
  const { app } = await buildTestApp();
  const response = await app.inject({ method: "GET", url: "/docs" });
  expect(response.statusCode).toBe(200);
  expect(response.headers["content-type"]).toMatch(/^text\/html/);
  expect(response.body).toMatch(/<html/i);
});

test("/docs carries a strict CSP, no framing and no sniffing, on the page and its assets", async () => {
  const { app } = await buildTestApp();
  for (const url of ["/docs", "/docs/static/swagger-initializer.js"]) {
    const response = await app.inject({ method: "GET", url });
    expect(response.statusCode, url).toBe(200);
    const csp = String(response.headers["content-security-policy"]);
    expect(csp, url).toContain("frame-ancestors 'none'");
    expect(csp, url).toContain("script-src 'self'");
    expect(csp, url).not.toContain("script-src 'self' 'unsafe-inline'");
    expect(response.headers["x-frame-options"], url).toBe("DENY");
    expect(response.headers["x-content-type-options"], url).toBe("nosniff");
  }
});

test("under an HTTPS public URL every answer (console, OAuth, docs, API) has Strict-Transport-Security; not under http", async () => {
  const secure = await buildTestApp({ env: { LATCHKEY_PUBLIC_URL: "https://keys.example.com" } });
  for (const url of [
    "/console/sign-in",
    "/.well-known/oauth-authorization-server",
    "/docs",
    "/v1/api-keys",
  ]) {
    const response = await secure.app.inject({ method: "GET", url });
    expect(response.headers["strict-transport-security"], url).toBe("max-age=31536000");
  }
  const plain = await buildTestApp();
  const response = await plain.app.inject({ method: "GET", url: "/console/sign-in" });
  expect(response.headers["strict-transport-security"]).toBeUndefined();
});
