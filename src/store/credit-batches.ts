import type { CreditConsumption, CreditResult } from "./plan-store.js";
import type { BatchOutcome } from "./sqlite-credits.js";

interface Waiting {
  consumption: CreditConsumption;
  resolve(result: CreditResult | undefined): void;
  reject(error: unknown): void;
}

/**
 * Gathers the consumptions asked for during one turn of the event loop and hands them to `runBatch`
 * together at its end (`setImmediate`): under load several requests reach their credits in the same
 * turn, and they then share one commit. A request waits no longer than the rest of the turn it is in.
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
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ consumption, resolve, reject });
    });
}
