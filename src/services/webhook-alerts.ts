import type { WebhookEvent } from "../domain/webhook-events.js";

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
}

/**
 * The event noticed on the hot path that no database change can carry (docs/webhooks.md): a window
 * exhausted is a refusal in the limiter (Redis or memory), which writes nothing to join. Rare by
 * construction, it is written after the decision, never before it: the request does not wait for it.
 * It carries a dedupe key naming its occurrence, so several nodes noticing it record it once. (A credit
 * threshold is a change: its event is written in the consumption's transaction, store/webhook-outbox.ts.)
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
  };
}
