import { expect, test } from "vitest";
import { createVersionedCache } from "../../src/cache/versioned-cache.js";

// The PostgreSQL + Redis key cache (src/cache/version-cached-keys.ts) relies on these bounds: a key's
// `last_used_at` moves without a version bump, so an entry is read again once it is a minute old.

test("an entry is served with its version until it reaches the maximum age, then read again", () => {
  let now = 0;
  const cache = createVersionedCache<string>({ now: () => now, maxAgeMs: 60_000 });
  cache.set("lkid_a", "record", 7);
  now = 59_999;
  expect(cache.get("lkid_a")).toMatchObject({ value: "record", version: 7 });
  now = 60_000;
  expect(cache.get("lkid_a")).toBeUndefined();
  expect(cache.size).toBe(0);
});

test("at capacity the oldest entry goes first", () => {
  const cache = createVersionedCache<string>({ now: () => 0, maxAgeMs: 60_000, capacity: 2 });
  cache.set("a", "1", 1);
  cache.set("b", "2", 1);
  cache.set("a", "1 again", 2); // replacing an entry does not evict another
  expect(cache.size).toBe(2);
  cache.set("c", "3", 1);
  expect(cache.size).toBe(2);
  expect(cache.get("a")).toBeUndefined();
  expect(cache.get("b")?.value).toBe("2");
  expect(cache.get("c")?.value).toBe("3");
});
