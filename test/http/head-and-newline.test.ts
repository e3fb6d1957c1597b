import { expect, test } from "vitest";
import { basicAuth, buildTestApp } from "../helpers/build-test-app.js";

/** What load balancers, uptime checkers and curl users notice before anything else. */

test("HEAD answers on every GET endpoint a load balancer or uptime check asks, with no body", async () => {
  const { app } = await buildTestApp();
  for (const url of ["/healthz", "/readyz", "/docs", "/openapi.json", "/metrics"]) {
    const head = await app.inject({ method: "HEAD", url });
    const get = await app.inject({ method: "GET", url });
    expect({ url, status: head.statusCode }).toEqual({ url, status: get.statusCode });
    expect(head.statusCode).toBeLessThan(400);
    expect(head.body).toBe("");
  }
});

test("HEAD on a key is authenticated like GET, and a path served with GET lists HEAD in its Allow", async () => {
  const testApp = await buildTestApp();
  const owner = await testApp.createOrganization();
  const auth = basicAuth(owner.apiId, owner.secret);
  const head = await testApp.app.inject({ method: "HEAD", url: `/v1/api-keys/${owner.id}`, headers: auth });
  expect(head.statusCode).toBe(200);
  expect(head.headers["ratelimit-policy"]).toBe('"api-key:read";q=100;w=60');
  expect(head.body).toBe("");
  const anonymous = await testApp.app.inject({ method: "HEAD", url: `/v1/api-keys/${owner.id}` });
  expect(anonymous.statusCode).toBe(401);
  const put = await testApp.app.inject({ method: "PUT", url: "/v1/api-keys", headers: auth });
  expect(put.statusCode).toBe(405);
  expect(put.headers.allow).toContain("HEAD");
});

test("every JSON body ends with a newline, so curl output does not run into the prompt", async () => {
  const testApp = await buildTestApp();
  const owner = await testApp.createOrganization();
  const auth = basicAuth(owner.apiId, owner.secret);
  const answers = await Promise.all([
    testApp.app.inject({ method: "GET", url: "/healthz" }),
    testApp.app.inject({ method: "GET", url: `/v1/api-keys/${owner.id}`, headers: auth }),
    testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: auth }),
    testApp.app.inject({ method: "GET", url: "/v1/api-keys" }),
    testApp.app.inject({ method: "GET", url: "/v1/nothing-here" }),
    testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: { ...auth, "content-type": "application/json" },
      payload: "{",
    }),
  ]);
  for (const answer of answers) {
    expect(answer.headers["content-type"]).toMatch(/^application\/json/);
    expect(answer.body.endsWith("}\n")).toBe(true);
    expect(answer.headers["content-length"]).toBe(String(Buffer.byteLength(answer.body)));
  }
});
