import { expect, test } from "vitest";
import { ownerApp } from "../helpers/build-test-app.js";

test("every response carries a unique X-Request-Id, and the request's log lines carry it as request_id", async () => {
  const { app, owner, testApp } = await ownerApp();
  const first = await app.inject({ url: `/v1/api-keys/${owner.id}`, headers: owner.headers });
  const second = await app.inject({ url: "/v1/api-keys" });
  const ids = [first.headers["x-request-id"], second.headers["x-request-id"]];
  expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(ids[1]).toMatch(/^[0-9a-f-]{36}$/);
  expect(ids[0]).not.toBe(ids[1]);
  const linesOfFirst = testApp.logs
    .map((line) => JSON.parse(line))
    .filter((log) => log.request_id === ids[0]);
  expect(linesOfFirst).toEqual([expect.objectContaining({ msg: "request completed", status: 200 })]);
});
