import { expect, test } from "vitest";
import { batchedCredits } from "../../src/store/credit-batches.js";
import type { CreditConsumption } from "../../src/store/plan-store.js";

const consumption = (credits: number): CreditConsumption => ({
  orgId: "org_b",
  periodStart: 0,
  periodEnd: 1,
  credits,
  allowance: 10,
  overages: false,
  hourStart: 0,
});

test("the consumptions asked for before the promise jobs drain go to one batch, in order; later ones start another", async () => {
  const batches: number[][] = [];
  const consume = batchedCredits((batch) => {
    batches.push(batch.map((c) => c.credits));
    return batch.map((c) => ({ consumed: true, used: c.credits }));
  });
  const first = await Promise.all([
    consume(consumption(1)),
    consume(consumption(2)),
    consume(consumption(3)),
  ]);
  expect(first.map((r) => r?.used)).toEqual([1, 2, 3]);
  expect(await consume(consumption(4))).toEqual({ consumed: true, used: 4 });
  expect(batches).toEqual([[1, 2, 3], [4]]);
});

test("requests let go together share a batch whatever number of awaits they take to reach their credits, and are answered before the next turn", async () => {
  const batches: number[][] = [];
  const consume = batchedCredits((batch) => {
    batches.push(batch.map((c) => c.credits));
    return batch.map((c) => ({ consumed: true, used: c.credits }));
  });
  // Requests released in one turn (sqlite-freshness.ts) run their decisions' awaits side by side.
  const request = async (credits: number, awaits: number) => {
    for (let i = 0; i < awaits; i++) await Promise.resolve();
    return consume(consumption(credits));
  };
  const order: string[] = [];
  setImmediate(() => order.push("next turn"));
  const answers = await Promise.all([request(1, 5), request(2, 0), request(3, 2)]);
  order.push("answered");

  expect(answers.map((r) => r?.used)).toEqual([1, 2, 3]);
  expect(batches).toEqual([[2, 3, 1]]);
  expect(order).toEqual(["answered"]);
});

test("each waiting request gets its own error; a failed batch rejects all; nothing run means undefined", async () => {
  const own = batchedCredits((batch) =>
    batch.map((c) => (c.credits === 2 ? new Error("two") : { consumed: true, used: 1 })),
  );
  const settled = await Promise.allSettled([own(consumption(1)), own(consumption(2))]);
  expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected"]);

  const failing = batchedCredits(() => {
    throw new Error("database is locked");
  });
  const both = await Promise.allSettled([failing(consumption(1)), failing(consumption(1))]);
  expect(both.map((s) => s.status === "rejected" && (s.reason as Error).message)).toEqual([
    "database is locked",
    "database is locked",
  ]);

  expect(await batchedCredits(() => undefined)(consumption(1))).toBeUndefined();
});
