import type { Clock } from "../domain/clock.js";
import {
  DELIVERY_TIMEOUT_MS,
  failedTooLong,
  retryDelayMs,
  WEBHOOK_RETENTION_MS,
  type WebhookTimeScale,
} from "../domain/webhook-schedule.js";
import type { LatchkeyMetrics } from "../metrics/metrics.js";
import { newAttemptId } from "../store/kysely-webhook-store.js";
import type { ClaimedDelivery, WebhookQueueStore } from "../store/webhook-store.js";
import { sendWebhook } from "./sender.js";
import { signedHeaders } from "./signature.js";

/** Deliveries one node takes per claim; each is sent concurrently with the others. */
const CLAIM_BATCH = 20;
/** How long a claimed delivery is this node's: past it (the node died sending), another node sends it. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 15_000;
/** How often the attempts log is pruned, expired grants announced and the queue's depth counted. */
const MAINTENANCE_INTERVAL_MS = 60_000;

export interface DispatcherOptions {
  store: WebhookQueueStore;
  clock: Clock;
  scale: WebhookTimeScale;
  allowPrivate: boolean;
  /** How often this node looks for due deliveries. */
  pollMs: number;
  metrics: LatchkeyMetrics | null;
  log: { warn(details: object, message: string): void };
}

export interface WebhookDispatcher {
  start(): void;
  /** Stops looking and aborts the attempts in flight (their lease lets another node send them). */
  stop(): Promise<void>;
  /** Sends what is due now; the number of attempts made. */
  runOnce(): Promise<number>;
  /** Prunes, announces expired grants, counts the queue. */
  maintain(): Promise<void>;
}

/** The payload a receiver gets: the message without its id (the id is the `webhook-id` header). */
function payloadOf(delivery: ClaimedDelivery): string {
  const { message } = delivery;
  return `{"type":${JSON.stringify(message.type)},"timestamp":${JSON.stringify(new Date(message.at).toISOString())},"data":${message.data}}`;
}

/**
 * Each node's delivery loop (docs/webhooks.md): claims due deliveries (one node per attempt), signs and
 * sends each, records the attempt and what follows (the next try of the schedule, or the end), and
 * disables an endpoint that has failed too long.
 */
export function createWebhookDispatcher(options: DispatcherOptions): WebhookDispatcher {
  const { store, clock, scale, metrics, log } = options;
  const inFlight = new AbortController();
  let running: Promise<number> | null = null;
  let timers: NodeJS.Timeout[] = [];

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const body = payloadOf(delivery);
    const headers = signedHeaders(delivery.endpoint, delivery.message.id, body, clock.now());
    const answer = await sendWebhook({
      url: delivery.endpoint.url,
      headers,
      body,
      allowPrivate: options.allowPrivate,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      signal: inFlight.signal,
    });
    if (inFlight.signal.aborted) return;
    const now = clock.now();
    const attemptsMade = delivery.attempts + 1;
    const retry = answer.ok ? null : retryDelayMs(attemptsMade, scale);
    const failingSince = delivery.endpoint.failingSince ?? now;
    await store.record({
      delivery,
      attempt: {
        id: newAttemptId(),
        deliveryId: delivery.deliveryId,
        messageId: delivery.message.id,
        endpointId: delivery.endpoint.id,
        status: answer.ok ? "succeeded" : "failed",
        responseStatus: answer.status,
        durationMs: answer.durationMs,
        at: now,
        responseExcerpt: answer.excerpt,
      },
      retryAt: retry === null ? null : now + retry,
      disableEndpoint: !answer.ok && failedTooLong(failingSince, now, scale),
    });
    metrics?.webhookDeliverySeconds.observe(answer.durationMs / 1000);
    metrics?.webhookDeliveries.inc({
      outcome: answer.ok ? "delivered" : retry === null ? "failed" : "retrying",
    });
  }

  async function runOnce(): Promise<number> {
    const claimed = await store.claimDue(clock.now(), LEASE_MS, CLAIM_BATCH);
    await Promise.all(
      claimed.map((delivery) =>
        attempt(delivery).catch((error: unknown) => {
          log.warn(
            { error: (error as Error).message, delivery: delivery.deliveryId },
            "webhook attempt not recorded",
          );
        }),
      ),
    );
    if (claimed.length > 0 && metrics) metrics.webhookQueueDepth.set(await store.depth());
    return claimed.length;
  }

  function tick(): void {
    if (running || inFlight.signal.aborted) return;
    running = runOnce()
      .catch((error: unknown) => {
        log.warn({ error: (error as Error).message }, "webhook delivery loop failed");
        return 0;
      })
      .finally(() => {
        running = null;
      });
  }

  async function maintain(): Promise<void> {
    const now = clock.now();
    await store.prune(now - WEBHOOK_RETENTION_MS);
    await store.announceExpiredGrants(now);
    metrics?.webhookQueueDepth.set(await store.depth());
  }

  return {
    start() {
      const poll = setInterval(tick, options.pollMs);
      const upkeep = setInterval(() => {
        maintain().catch((error: unknown) => {
          log.warn({ error: (error as Error).message }, "webhook maintenance failed");
        });
      }, MAINTENANCE_INTERVAL_MS);
      poll.unref();
      upkeep.unref();
      timers = [poll, upkeep];
    },
    async stop() {
      for (const timer of timers) clearInterval(timer);
      inFlight.abort();
      await running;
    },
    runOnce,
    maintain,
  };
}
