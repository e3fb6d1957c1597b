import { describe, expect, test } from "vitest";
import { LatchkeyError } from "@latchkey/client";
import { startRealServer } from "./real-server.js";

/** docs/client.md: every create carries an Idempotency-Key, kept across its retries. */

/** A fetch that reaches the real server and records the Idempotency-Key of every request it sends. */
function recordingFetch(lose: (attempt: number, method: string) => "response" | "before" | "after") {
  const keys: (string | null)[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const attempt = keys.push(new Headers(init?.headers).get("idempotency-key"));
    const fate = lose(attempt, init?.method ?? "GET");
    // The request never reaches the server (a refused connection).
    if (fate === "before") throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
    const response = await globalThis.fetch(input, init);
    // The server answered (and committed), but the answer is lost on the way: a cut connection.
    if (fate === "after") throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
    return response;
  };
  return { fetch, keys };
}

describe("the typed client's creates", () => {
  test("a create whose answer is lost after the server committed is retried with the same key: one key", async () => {
    const server = await startRealServer();
    const owner = await server.owner();
    const before = await server.test.services.store.listKeys(owner.orgId, {
      limit: 100,
      includeDisabled: true,
      withPermissions: [],
    });
    const { fetch, keys } = recordingFetch((attempt) => (attempt === 1 ? "after" : "response"));
    const client = server.clientFor(owner, { fetch, sleep: async () => undefined });
    const created = await client.keys.create({ name: "worker", permissions: ["images:read"] });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    const after = await server.test.services.store.listKeys(owner.orgId, {
      limit: 100,
      includeDisabled: true,
      withPermissions: [],
    });
    expect(after).toHaveLength(before.length + 1);
    expect(after.map((key) => key.id)).toContain(created.id);
    // The replayed answer holds the secret: the new key works.
    const asNew = server.clientFor({ apiId: created.api_id, secret: created.api_key });
    await expect(asNew.keys.get(created.id)).rejects.toMatchObject({ code: "missing_permission" });
  });

  test("a family create lost before the server is retried; each create has a key of its own", async () => {
    const server = await startRealServer();
    const owner = await server.owner();
    const { fetch, keys } = recordingFetch((attempt) => (attempt === 1 ? "before" : "response"));
    const client = server.clientFor(owner, { fetch, sleep: async () => undefined });
    await client.proxies.create({ name: "one" });
    await client.proxies.create({ name: "two" });
    expect(keys).toHaveLength(3);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect((await client.proxies.list()).data.map((record) => record.name).sort()).toEqual(["one", "two"]);
  });

  test("an update is not retried after a lost answer, and sends no Idempotency-Key", async () => {
    const server = await startRealServer();
    const owner = await server.owner();
    const { fetch, keys } = recordingFetch((_attempt, method) => (method === "POST" ? "after" : "response"));
    const client = server.clientFor(owner, { fetch, sleep: async () => undefined });
    const error = await client.keys
      .update(owner.id, { name: "x", permissions: ["images:read"] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LatchkeyError);
    expect(error).toMatchObject({ code: "network_error" });
    expect(keys).toEqual([null]);
  });
});
