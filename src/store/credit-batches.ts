import type { CreditConsumption, CreditResult } from "./plan-store.js";
import type { BatchOutcome } from "./sqlite-credits.js";

interface Waiting {
  consumption: CreditConsumption;
  resolve(result: CreditResult | undefined): void;
  reject(error: unknown): void;
}

/**
 * Gathers the consumptions asked for while the current callback's promise jobs run, and hands them to
 * `runBatch` together once those jobs are done (`process.nextTick`, which runs after the microtask
 * queue drains). The requests of one event-loop turn are let go together (sqlite-freshness.ts), so
 * their decisions reach their credits in the same drain and share one commit, and every one of them is
 * answered in that same turn. With `setImmediate` the batch waited for the next turn, and its answers
 * with it: about 44 against 38 µs of CPU per credited authorize (bench/README.md, "Credits in the turn
 * of their requests").
 * Each promise settles with its own consumption's answer (undefined when `runBatch` ran nothing, see
 * sqlite-credits.ts), or rejects with its own error, or with the batch's when the commit failed and
 * nothing was consumed.
 */
export function batchedCredits(
  runBatch: (batch: readonly CreditConsumption[]) => BatchOutcome[] | undefined,
): (consumption: CreditConsumption) => Promise<CreditResult | undefined> {
  let waiting: Waiting[] = [];

  function flush(): void {
    const batch = waiting;
    waiting = [];
    let outcomes: BatchOutcome[] | undefined;
    try {
      outcomes = runBatch(batch.map((entry) => entry.consumption));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, index) => {
      const outcome = outcomes?.[index];
      if (outcome instanceof Error) entry.reject(outcome);
      else entry.resolve(outcome);
    });
  }

  return (consumption) =>
    new Promise((resolve, reject) => {
      if (waiting.length === 0) process.nextTick(flush);
      waiting.push({ consumption, resolve, reject });
    });
}
