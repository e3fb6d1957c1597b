import { expect, vi } from "vitest";
import { scaledMs } from "./start-deadline.js";

/** One request the load sent: when it started (performance.now()) and how it was answered. */
interface Sent {
  server: string;
  startedAt: number;
  status: number;
}

export interface ChangeUnderLoad {
  /** Base URLs that serve the requests and must see the change. */
  readers: string[];
  /** The request the load repeats, and the status it must get before and after the change. */
  request: (baseUrl: string) => Promise<Response>;
  before: number;
  after: number;
  /** Makes the change (through another server, the CLI, ...); resolves once it has answered. */
  change: () => Promise<void>;
  /** Concurrent clients per reader. */
  clients?: number;
}

/** Until every reader has answered `atLeast` requests of the load that `counts` picks. */
async function untilEveryReaderAnswered(
  readers: string[],
  sent: Sent[],
  atLeast: number,
  counts: (s: Sent) => boolean,
) {
  await vi.waitFor(
    () => {
      for (const server of readers) {
        expect(sent.filter((s) => s.server === server && counts(s)).length).toBeGreaterThanOrEqual(atLeast);
      }
    },
    { timeout: scaledMs(5000), interval: 5 },
  );
}

/**
 * Keeps several clients per reader sending the same request while `change` runs, and checks that
 * every request that started after `change` had answered got `after`: no node may answer from a
 * record read before the change. Requests in flight during the change may get either status.
 */
export async function expectChangeSeenAtOnce(options: ChangeUnderLoad): Promise<void> {
  const { readers, request, before, after, change, clients = 4 } = options;
  // Warm every reader: the record is now in its cache, if it keeps one.
  for (const server of readers) expect((await request(server)).status).toBe(before);

  const sent: Sent[] = [];
  let running = true;
  async function client(server: string): Promise<void> {
    while (running) {
      const startedAt = performance.now();
      const response = await request(server);
      await response.arrayBuffer();
      sent.push({ server, startedAt, status: response.status });
    }
  }
  const load = readers.flatMap((server) => Array.from({ length: clients }, () => client(server)));
  // The load really runs against a warm record on every reader before the change (as many answers
  // as it has clients).
  await untilEveryReaderAnswered(readers, sent, clients, (s) => s.status === before);
  await change();
  const changedAt = performance.now();
  // The very first request after the change, on every reader, while the load goes on.
  const first = await Promise.all(readers.map((server) => request(server)));
  expect(first.map((response) => response.status)).toEqual(readers.map(() => after));
  // And on every reader, some of the load's requests started after the change.
  await untilEveryReaderAnswered(readers, sent, clients, (s) => s.startedAt > changedAt);
  running = false;
  await Promise.all(load);

  const late = sent.filter((s) => s.startedAt > changedAt);
  const wrong = late.filter((s) => s.status !== after);
  expect(wrong, `requests started after the change that got another status than ${after}`).toEqual([]);
}
