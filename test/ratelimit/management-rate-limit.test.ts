import { expect, test } from "vitest";
import { createManagementRateLimit } from "../../src/ratelimit/management-rate-limit.js";
import { createMemoryRateLimiter } from "../../src/ratelimit/memory-rate-limiter.js";
import type { OrganizationLimits } from "../../src/store/key-store.js";
import { fakeClock } from "../helpers/build-test-app.js";

function setup(limits: OrganizationLimits = { maxKeys: null, quotas: {} }) {
  const clock = fakeClock(0);
  let loads = 0;
  const rateLimit = createManagementRateLimit({
    limiter: createMemoryRateLimiter(clock),
    loadLimits: async () => {
      loads++;
      return structuredClone(limits);
    },
    windowSeconds: 60,
    now: clock.now,
  });
  return { clock, rateLimit, limits, loads: () => loads };
}

test("groups default to 100 reads and 20 writes per window, counted separately", async () => {
  const { rateLimit } = setup();
  for (let i = 0; i < 20; i++) expect((await rateLimit.consume("org", "api-key:write")).type).toBe("allow");
  const denied = await rateLimit.consume("org", "api-key:write");
  expect(denied).toMatchObject({ type: "deny", quota: 20, windowSeconds: 60 });
  const read = await rateLimit.consume("org", "api-key:read");
  expect(read).toMatchObject({ type: "allow", quota: 100, remaining: 99 });
});

test("Retry-After rounds up to whole seconds until the oldest admission leaves", async () => {
  const { rateLimit, clock } = setup();
  for (let i = 0; i < 20; i++) await rateLimit.consume("org", "proxy:write");
  clock.advance(58_500);
  expect(await rateLimit.consume("org", "proxy:write")).toMatchObject({ type: "deny", retryAfterSeconds: 2 });
  clock.advance(1_499);
  expect(await rateLimit.consume("org", "proxy:write")).toMatchObject({ type: "deny", retryAfterSeconds: 1 });
  clock.advance(1);
  expect((await rateLimit.consume("org", "proxy:write")).type).toBe("allow");
});

test("an override applies once the cached limits are older than a second, read once per second", async () => {
  const { rateLimit, clock, limits, loads } = setup();
  await Promise.all(Array.from({ length: 50 }, () => rateLimit.consume("org", "og-config:read")));
  expect(loads()).toBe(1);
  limits.quotas["og-config:read"] = 500;
  expect(await rateLimit.consume("org", "og-config:read")).toMatchObject({ quota: 100 });
  clock.advance(1_000);
  expect(await rateLimit.consume("org", "og-config:read")).toMatchObject({ quota: 500, remaining: 448 });
  expect(loads()).toBe(2);
});
