import type { WebhookEvent } from "../domain/webhook-events.js";
import type { CreditLedger } from "./credits.js";

/** Occurrences remembered per node, so a burst of refusals asks the database once. */
const REMEMBERED = 10_000;

export interface WebhookAlertDeps {
  /** Records an event in the outbox (ignored when its dedupe key was recorded before). */
  enqueue(event: WebhookEvent): Promise<void>;
  now(): number;
  log: { warn(details: object, message: string): void };
}

export interface WebhookAlerts {
  /** A rate-limit refusal: the first of an organization's group in a window is sent. */
  rateLimited(orgId: string, refusal: { group: string; quota: number; windowSeconds: number }): void;
  /** The credit ledger, saying when a consumption crosses 80% and 100% of the allowance. */
  watchCredits(ledger: CreditLedger): CreditLedger;
}

/**
 * Events noticed on the hot path (docs/webhooks.md): rare by construction (a threshold crossed, a window
 * exhausted) and written after the decision, never before it: the request does not wait for them. Each
 * carries a dedupe key naming its occurrence, so several nodes noticing it record it once.
 */
export function createWebhookAlerts(deps: WebhookAlertDeps): WebhookAlerts {
  const seen = new Set<string>();
  const record = (event: WebhookEvent & { dedupeKey: string }) => {
    if (seen.has(event.dedupeKey)) return;
    if (seen.size >= REMEMBERED) seen.clear();
    seen.add(event.dedupeKey);
    deps.enqueue(event).catch((error: unknown) => {
      seen.delete(event.dedupeKey);
      deps.log.warn({ error: (error as Error).message, event: event.type }, "webhook event not recorded");
    });
  };

  return {
    rateLimited(orgId, { group, quota, windowSeconds }) {
      const at = deps.now();
      const windowStart = Math.floor(at / (windowSeconds * 1000)) * windowSeconds * 1000;
      record({
        type: "rate_limit.exhausted",
        orgId,
        at,
        data: {
          organization_id: orgId,
          group,
          quota,
          window_seconds: windowSeconds,
          window_start: new Date(windowStart).toISOString(),
        },
        dedupeKey: `rate_limit.exhausted:${orgId}:${group}:${windowSeconds}:${windowStart}`,
      });
    },

    watchCredits(ledger) {
      return {
        async consume(orgId, plan, credits) {
          const outcome = await ledger.consume(orgId, plan, credits);
          const { allowance, used, consumed, resetsAt } = outcome;
          if (allowance > 0) {
            for (const percent of plan.creditThresholds) {
              const threshold = Math.ceil((allowance * percent) / 100);
              const crossed = consumed > 0 ? used - consumed < threshold && used >= threshold : false;
              // A refusal at the allowance says it too: the 100% mark is reached for this request.
              const refusedAtFull = consumed === 0 && percent === 100 && used >= threshold;
              if (!crossed && !refusedAtFull) continue;
              record({
                type: "credits.threshold_reached",
                orgId,
                at: deps.now(),
                data: {
                  organization_id: orgId,
                  threshold: percent,
                  used,
                  allowance,
                  period_end: new Date(resetsAt).toISOString(),
                },
                dedupeKey: `credits.threshold_reached:${orgId}:${resetsAt}:${percent}`,
              });
            }
          }
          return outcome;
        },
      };
    },
  };
}
