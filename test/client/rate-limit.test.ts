import { expect, test } from "vitest";
import { LatchkeyError, type RetryEvent } from "@latchkey/client";
import { fakeClock } from "../helpers/build-test-app.js";
import { startRealServer } from "./real-server.js";

const SHORT_WINDOW = { LATCHKEY_RATE_WINDOW_SECONDS: "2" };

test("a rate-limited request is waited out for Retry-After seconds and then succeeds", async () => {
  // The server's clock is the test's: the client's wait moves it, so nothing waits in real time, and
  // the retry is admitted only if the client waited at least as long as the window asked.
  const clock = fakeClock();
  const server = await startRealServer(SHORT_WINDOW, clock);
  const owner = await server.owner();
  await server.setQuota(owner.orgId, "api-key:read", 2);
  const retries: RetryEvent[] = [];
  const slept: number[] = [];
  const client = server.clientFor(owner, {
    onRetry: (event) => retries.push(event),
    sleep: async (ms) => {
      slept.push(ms);
      clock.advance(ms);
    },
  });

  await client.keys.list();
  await client.keys.list();
  const third = await client.keys.list();

  expect(third.data).toHaveLength(1);
  expect(retries).toHaveLength(1);
  const [retry] = retries;
  expect(retry?.attempt).toBe(1);
  expect(retry?.error).toMatchObject({ status: 429, code: "rate_limited" });
  expect(retry?.error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(retry?.error.retryAfterSeconds).toBeLessThanOrEqual(2);
  expect(retry?.error.message).toContain("api-key:read");
  // The wait is Retry-After (2 s: no time passed since the first request) plus at most 50 ms of
  // jitter, and the client really waited it, once.
  expect(retry?.delayMs).toBeGreaterThanOrEqual(2000);
  expect(retry?.delayMs).toBeLessThan(2050);
  expect(slept).toEqual([retry?.delayMs]);
});

test("with maxRetries 0 the rate-limit rejection is thrown with its Retry-After", async () => {
  const server = await startRealServer(SHORT_WINDOW);
  const owner = await server.owner();
  await server.setQuota(owner.orgId, "api-key:write", 1);
  const client = server.clientFor(owner, { maxRetries: 0 });

  await client.keys.create({ permissions: ["images:read"] });
  const error = await client.keys.create({ permissions: ["images:read"] }).catch((caught: unknown) => caught);

  expect(error).toBeInstanceOf(LatchkeyError);
  expect(error).toMatchObject({ status: 429, code: "rate_limited", body: { error: "Too Many Requests" } });
  expect((error as LatchkeyError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
});
