import { expect, test } from "vitest";
import { ownerApp } from "../helpers/build-test-app.js";

test("an owner key creates a key and reads it back without its secret", async () => {
  const { app, owner } = await ownerApp();
  const created = await app.inject({
    method: "POST",
    url: "/v1/api-keys",
    headers: owner.headers,
    payload: { name: "reader", permissions: ["api_keys:read"] },
  });
  expect(created.statusCode).toBe(200);
  const body = created.json();
  expect(body.api_key).toMatch(/^lksk_/);
  const read = await app.inject({ method: "GET", url: `/v1/api-keys/${body.id}`, headers: owner.headers });
  expect(read.statusCode).toBe(200);
  expect(read.json()).not.toHaveProperty("api_key");
  expect(read.json().name).toBe("reader");
});
