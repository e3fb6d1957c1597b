import { expect, test } from "vitest";
import { createExpiryRecorder } from "../../src/services/expiry-recorder.js";
import type { ApiKeyRecord, LastUseTarget } from "../../src/store/key-store.js";
import { fakeClock } from "../helpers/build-test-app.js";
import { newKey } from "../helpers/store-records.js";

/** A store that records each expiry once, as the conditional UPDATE does, and can fail on demand. */
function setup(options: { failures?: number; due?: LastUseTarget[] } = {}) {
  const recorded = new Set<string>();
  const attempts: string[] = [];
  const warnings: string[] = [];
  let failures = options.failures ?? 0;
  let counted = 0;
  const recorder = createExpiryRecorder({
    clock: fakeClock(),
    log: { warn: (_details, message) => warnings.push(message) },
    onRecorded: () => counted++,
    store: {
      async recordExpiry(key) {
        attempts.push(key.id);
        if (failures > 0) {
          failures--;
          throw new Error("database gone");
        }
        if (recorded.has(key.id)) return false;
        recorded.add(key.id);
        return true;
      },
      async findUnrecordedExpiries() {
        return (options.due ?? []).filter((key) => !recorded.has(key.id));
      },
    },
  });
  return { recorder, attempts, warnings, counted: () => counted };
}

const key: ApiKeyRecord = newKey("org_x", { expiresAt: 0 });

test("a node writes once for a key however often it is refused, and the metric counts once", async () => {
  const { recorder, attempts, counted } = setup();
  for (let i = 0; i < 5; i++) recorder.note(key);
  await recorder.flush();
  expect(attempts).toEqual([key.id]);
  expect(counted()).toBe(1);
  expect(await recorder.sweep()).toBe(0);
});

test("a failed write is logged, never thrown, and tried again at the next refusal", async () => {
  const { recorder, attempts, warnings, counted } = setup({ failures: 1 });
  recorder.note(key);
  await recorder.flush();
  expect(warnings).toEqual(["could not record a key's expiry"]);
  recorder.note(key);
  await recorder.flush();
  expect(attempts).toEqual([key.id, key.id]);
  expect(counted()).toBe(1);
});

test("the sweep records what no request ran into, and a refusal after it writes nothing new", async () => {
  const other = newKey("org_x", { expiresAt: 0 });
  const { recorder, counted } = setup({ due: [key, other] });
  expect(await recorder.sweep()).toBe(2);
  recorder.note(key);
  await recorder.flush();
  expect(counted()).toBe(2);
});
