import { expect, test } from "vitest";
import { createLastUseRecorder, type LastUseLog } from "../../src/services/last-use.js";
import type { ApiKeyRecord } from "../../src/store/key-store.js";
import { fakeClock } from "../helpers/build-test-app.js";

/**
 * The throttle on its own, with a recording stand-in for the one store method it calls (the real
 * store's conditional UPDATE is covered by the store contract on SQLite and PostgreSQL).
 */
function recorder(options: { maxTracked?: number; fail?: "reject" | "throw" } = {}) {
  const clock = fakeClock();
  const writes: Array<{ id: string; at: number; staleBefore: number }> = [];
  const warnings: Array<Record<string, unknown>> = [];
  const log: LastUseLog = { warn: (details) => warnings.push(details) };
  const lastUse = createLastUseRecorder({
    clock,
    log,
    maxTracked: options.maxTracked,
    store: {
      touchLastUsed(key, at, staleBefore) {
        writes.push({ id: key.id, at, staleBefore });
        if (options.fail === "throw") throw new Error("database gone");
        return options.fail === "reject" ? Promise.reject(new Error("database gone")) : Promise.resolve();
      },
    },
  });
  return { clock, writes, warnings, lastUse };
}

function key(id: string, lastUsedAt: number | null = null): ApiKeyRecord {
  return {
    id,
    orgId: "org_x",
    apiId: `lkid_${id}`,
    secretHash: "00",
    secretScheme: "server",
    name: id,
    description: null,
    enabled: true,
    permissions: [],
    allFuturePermissions: false,
    allowedCidrs: null,
    metadata: null,
    createdAt: 0,
    updatedAt: 0,
    lastUsedAt,
    leakedAt: null,
    expiresAt: null,
    previousSecretHash: null,
    previousSecretScheme: "server",
    previousSecretExpiresAt: null,
  };
}

test("writes a key's first use, then at most once a minute, with the minute as the UPDATE's condition", async () => {
  const { clock, writes, lastUse } = recorder();
  const start = clock.now();
  lastUse.touch(key("key_a"));
  lastUse.touch(key("key_a"));
  clock.advance(59_999);
  lastUse.touch(key("key_a"));
  await lastUse.flush();
  expect(writes).toEqual([{ id: "key_a", at: start, staleBefore: start - 60_000 }]);
  clock.advance(1);
  lastUse.touch(key("key_a"));
  await lastUse.flush();
  expect(writes.map((write) => write.at)).toEqual([start, start + 60_000]);
});

test("a key read with a last use within the minute (written by another node) is not written again", async () => {
  const { clock, writes, lastUse } = recorder();
  lastUse.touch(key("key_a", clock.now() - 30_000));
  await lastUse.flush();
  expect(writes).toEqual([]);
  lastUse.touch(key("key_b", clock.now() - 60_000));
  await lastUse.flush();
  expect(writes.map((write) => write.id)).toEqual(["key_b"]);
});

test("a failing database is logged, never thrown, whether it rejects or throws", async () => {
  for (const fail of ["reject", "throw"] as const) {
    const { warnings, lastUse } = recorder({ fail });
    expect(() => lastUse.touch(key("key_a"))).not.toThrow();
    await lastUse.flush();
    expect(warnings).toEqual([{ key_id: "key_a", error: "database gone" }]);
  }
});

test("the map of recent writes stays within its bound, forgetting the oldest keys first", async () => {
  const { writes, lastUse } = recorder({ maxTracked: 3 });
  for (const id of ["key_1", "key_2", "key_3", "key_4"]) lastUse.touch(key(id));
  // key_1 was forgotten to make room, so it is written again; key_4 is still remembered.
  lastUse.touch(key("key_1"));
  lastUse.touch(key("key_4"));
  await lastUse.flush();
  expect(writes.map((write) => write.id)).toEqual(["key_1", "key_2", "key_3", "key_4", "key_1"]);
});
