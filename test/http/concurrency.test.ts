import { expect, test } from "vitest";
import { buildTestApp } from "../helpers/build-test-app.js";
import { listAll, seedKeys } from "../helpers/http-keys.js";

/** Races that must not push an organization past its key quota or its rate limit. */

function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

test("30 parallel creates at 95 keys: exactly 5 succeed, 25 are 409", async () => {
  const testApp = await buildTestApp();
  const owner = await testApp.createOrganization();
  await seedKeys(testApp, owner, 94);
  // Raise the write allowance so that the limiter admits all 30 and only the key quota decides.
  await testApp.services.store.setQuota(owner.orgId, "api-key:write", 100);
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      testApp.app.inject({
        method: "POST",
        url: "/v1/api-keys",
        headers: owner.headers,
        payload: { name: `racer ${i}`, permissions: [] },
      }),
    ),
  );
  expect(tally(responses.map((response) => response.statusCode))).toEqual({ 200: 5, 409: 25 });
  for (const response of responses.filter((r) => r.statusCode === 409)) {
    expect(response.json().code).toBe("key_quota_exceeded");
  }
  const keys = await listAll(testApp, owner);
  expect(keys).toHaveLength(100);
  const created = responses.filter((r) => r.statusCode === 200).map((r) => r.json().id);
  expect(keys.map((key) => key.id)).toEqual(expect.arrayContaining(created));
});

test("130 parallel reads: exactly 100 succeed and 30 are 429", async () => {
  const testApp = await buildTestApp();
  const owner = await testApp.createOrganization();
  const responses = await Promise.all(
    Array.from({ length: 130 }, (_, i) =>
      testApp.app.inject({
        method: "GET",
        url: i % 2 === 0 ? "/v1/api-keys" : `/v1/api-keys/${owner.id}`,
        headers: owner.headers,
      }),
    ),
  );
  expect(tally(responses.map((response) => response.statusCode))).toEqual({ 200: 100, 429: 30 });
  // Each admitted request saw a distinct remaining count: no two took the same slot.
  const remaining = responses
    .filter((response) => response.statusCode === 200)
    .map((response) => String(response.headers.ratelimit).match(/;r=(\d+)/)?.[1]);
  expect(new Set(remaining).size).toBe(100);
});

test("parallel disables of one key all answer 204 and leave it disabled", async () => {
  const testApp = await buildTestApp();
  const owner = await testApp.createOrganization();
  const [target] = await seedKeys(testApp, owner, 1, { name: "target", permissions: ["usage:read"] });
  if (!target) throw new Error("seeding failed");
  const responses = await Promise.all(
    Array.from({ length: 10 }, () =>
      testApp.app.inject({ method: "DELETE", url: `/v1/api-keys/${target.id}`, headers: owner.headers }),
    ),
  );
  expect(responses.map((response) => response.statusCode)).toEqual(Array(10).fill(204));
  const attempt = await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: target.headers });
  expect(attempt.statusCode).toBe(401);
});
