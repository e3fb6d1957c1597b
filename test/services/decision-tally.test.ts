import { expect, test } from "vitest";
import type { AccessDecision } from "../../src/services/access-decision.js";
import { createDecisionTally } from "../../src/services/decision-tally.js";
import type { ApiKeyRecord } from "../../src/store/key-store.js";
import type { DecisionCounts } from "../../src/store/usage-export-store.js";
import { LatchkeyError } from "../../src/domain/errors.js";
import { fakeClock } from "../helpers/build-test-app.js";

const HOUR = 3_600_000;
const T = Date.parse("2026-11-22T10:00:00Z");

const caller = (orgId: string) => ({ orgId }) as ApiKeyRecord;
const allowed = (orgId: string) =>
  ({ allowed: true, caller: caller(orgId), error: null, rateLimit: null, credits: null }) as AccessDecision;
const refused = (orgId: string | null) =>
  ({
    allowed: false,
    caller: orgId === null ? null : caller(orgId),
    error: new LatchkeyError("missing_permission", "no"),
    rateLimit: null,
    credits: null,
  }) as AccessDecision;

function recordingStore() {
  const writes: DecisionCounts[][] = [];
  let failing = false;
  return {
    writes,
    fail: (value: boolean) => (failing = value),
    store: {
      async addDecisions(rows: readonly DecisionCounts[]) {
        if (failing) throw new Error("database unavailable");
        writes.push([...rows]);
      },
    },
  };
}

const log = { warn: () => undefined };

test("decisions are counted in memory, per organization and hour, and written in one batch", async () => {
  const clock = fakeClock(T + 10);
  const { writes, store } = recordingStore();
  const tally = createDecisionTally({ store, clock, log, intervalMs: 60_000 });
  tally.note(allowed("org_a"));
  tally.note(allowed("org_a"));
  tally.note(refused("org_a"));
  tally.note(refused(null)); // credentials refused: no organization proved, not counted
  clock.advance(HOUR);
  tally.note(allowed("org_b"));
  // Nothing is written on the request path.
  expect(writes).toEqual([]);
  await tally.flush();
  expect(writes).toEqual([
    [
      { orgId: "org_a", hourStart: T, allowed: 2, refused: 1 },
      { orgId: "org_b", hourStart: T + HOUR, allowed: 1, refused: 0 },
    ],
  ]);
  await tally.flush();
  expect(writes).toHaveLength(1);
  await tally.close();
});

test("a failed write keeps the counts for the next one, added to what came meanwhile", async () => {
  const clock = fakeClock(T);
  const { writes, store, fail } = recordingStore();
  const tally = createDecisionTally({ store, clock, log, intervalMs: 60_000 });
  tally.note(allowed("org_a"));
  fail(true);
  await expect(tally.flush()).rejects.toThrow("database unavailable");
  tally.note(allowed("org_a"));
  fail(false);
  await tally.close();
  expect(writes).toEqual([[{ orgId: "org_a", hourStart: T, allowed: 2, refused: 0 }]]);
});

test("counts are written every interval without being asked", async () => {
  const { writes, store } = recordingStore();
  const tally = createDecisionTally({ store, clock: fakeClock(T), log, intervalMs: 20 });
  tally.note(allowed("org_a"));
  await expect.poll(() => writes.length).toBe(1);
  await tally.close();
});
