import { expect, vi } from "vitest";
import { basicAuth } from "./build-test-app.js";
import { scaledMs } from "./start-deadline.js";

/** One request of the load: which server, which secret, when it started and ended, its status. */
interface Sent {
  server: string;
  secret: "old" | "new";
  startedAt: number;
  endedAt: number;
  status: number;
}

export interface RollOverlapOptions {
  /** The server the key is created and rolled through. */
  writer: string;
  /** Every server that must honour the overlap (the writer may be one of them). */
  readers: string[];
  /** The owner's Basic credentials. */
  owner: { authorization: string };
  /** A short overlap: long enough for a few rounds of requests on a loaded machine. */
  overlapSeconds: number;
  /** Concurrent clients per reader and secret. */
  clients?: number;
}

/**
 * Creates a key, warms every reader with it, rolls it with a short overlap, and keeps clients on every
 * reader sending both secrets until the overlap has ended and each reader has answered a few requests
 * started after it. Every request with the new secret must succeed; with the old one, every request
 * answered before the overlap's end must succeed and every request started at or after it be refused.
 * Times are the servers' own clock (the same machine): the check waits for the end, it sleeps for nothing.
 */
export async function expectRollOverlapHonoured(options: RollOverlapOptions): Promise<void> {
  const { writer, readers, owner, overlapSeconds, clients = 2 } = options;
  const created = await fetch(`${writer}/v1/api-keys`, {
    method: "POST",
    headers: { ...owner, "content-type": "application/json" },
    body: JSON.stringify({ name: "rolled", permissions: ["api_keys:read"] }),
  });
  expect(created.status).toBe(200);
  const key = (await created.json()) as { id: string; api_id: string; api_key: string };
  const read = (server: string, secret: string) =>
    fetch(`${server}/v1/api-keys/${key.id}`, { headers: basicAuth(key.api_id, secret) });
  for (const server of readers) expect((await read(server, key.api_key)).status).toBe(200);

  const rolledResponse = await fetch(`${writer}/v1/api-keys/${key.id}/roll`, {
    method: "POST",
    headers: { ...owner, "content-type": "application/json" },
    body: JSON.stringify({ overlap_seconds: overlapSeconds }),
  });
  expect(rolledResponse.status).toBe(200);
  const rolled = (await rolledResponse.json()) as { api_key: string; previous_secret_expires_at: string };
  const end = Date.parse(rolled.previous_secret_expires_at);
  const secrets = { old: key.api_key, new: rolled.api_key };

  const sent: Sent[] = [];
  let running = true;
  async function client(server: string, secret: "old" | "new"): Promise<void> {
    while (running) {
      const startedAt = Date.now();
      const response = await read(server, secrets[secret]);
      await response.arrayBuffer();
      sent.push({ server, secret, startedAt, endedAt: Date.now(), status: response.status });
    }
  }
  const load = readers.flatMap((server) =>
    (["old", "new"] as const).flatMap((secret) =>
      Array.from({ length: clients }, () => client(server, secret)),
    ),
  );
  const after = (s: Sent) => s.secret === "old" && s.startedAt >= end;
  try {
    await vi.waitFor(
      () => {
        for (const server of readers) {
          expect(sent.filter((s) => s.server === server && after(s)).length).toBeGreaterThanOrEqual(3);
        }
      },
      { timeout: overlapSeconds * 1000 + scaledMs(10_000), interval: 20 },
    );
  } finally {
    running = false;
    await Promise.all(load);
  }

  const during = sent.filter((s) => s.secret === "old" && s.endedAt < end);
  // The overlap really was exercised on every reader, not only checked after it.
  for (const server of readers) expect(during.filter((s) => s.server === server).length).toBeGreaterThan(0);
  expect(
    during.filter((s) => s.status !== 200),
    "old secret refused during the overlap",
  ).toEqual([]);
  expect(
    sent.filter((s) => after(s) && s.status !== 401),
    "old secret accepted after the overlap",
  ).toEqual([]);
  expect(
    sent.filter((s) => s.secret === "new" && s.status !== 200),
    "new secret refused",
  ).toEqual([]);
}
