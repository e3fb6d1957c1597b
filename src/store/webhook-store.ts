import type { AuditOf } from "../domain/audit.js";
import type { WebhookEvent, WebhookEventType } from "../domain/webhook-events.js";
import type { IdempotentResponse } from "./idempotency-store.js";
import type { ListPosition } from "./key-store.js";

/** A webhook endpoint as stored: an organization's (`orgId`) or the platform's (`orgId` null). */
export interface WebhookEndpoint {
  /** `whe_...` identifier. */
  id: string;
  orgId: string | null;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  /** The signing secret (`whsec_...`): returned by the create only. */
  secret: string;
  /** After a rotation, the replaced secret, which signs beside the new one until it expires. */
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  /** First failed attempt since the last success; null while the endpoint is not failing. */
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

/** One attempt to deliver a message to an endpoint. */
export interface WebhookAttempt {
  /** `wha_...` identifier. */
  id: string;
  deliveryId: string;
  messageId: string;
  endpointId: string;
  status: "succeeded" | "failed";
  /** The receiver's HTTP status; null when none came (refused, unreachable, cut at the timeout). */
  responseStatus: number | null;
  durationMs: number;
  at: number;
  /** The start of the receiver's answer, or why no answer came. */
  responseExcerpt: string | null;
}

/** An attempt a node claimed: the delivery with its message and endpoint. */
export interface ClaimedDelivery {
  deliveryId: string;
  /** Attempts made before this one. */
  attempts: number;
  /** The end of this node's lease: the claim's mark, which a resend meanwhile replaces. */
  leaseUntil: number;
  message: { id: string; type: WebhookEventType; at: number; orgId: string | null; data: string };
  endpoint: WebhookEndpoint;
}

/** What a claimed attempt came to. */
export interface AttemptOutcome {
  delivery: ClaimedDelivery;
  attempt: WebhookAttempt;
  /** When to try again; null: the delivery is over (delivered, or failed for good). */
  retryAt: number | null;
  /** Disable the endpoint (it has failed too long) and say so to the platform's endpoints. */
  disableEndpoint: boolean;
}

/** Owner of endpoints: an organization's id, or null for the platform's. */
export type EndpointOwner = string | null;

/** A message a test or a resend queued, as the audit trail records it. */
export interface QueuedWebhookMessage {
  messageId: string;
  type: WebhookEventType;
  /** The one endpoint it was queued for; null: every endpoint of the owner that had it. */
  endpointId: string | null;
  /** Deliveries queued. */
  queued: number;
}

/**
 * What a change writes in its own transaction beside the change: its audit entry, and the first
 * answer of an idempotent POST (built from the changed record).
 */
export interface ChangeRecords<T> {
  audit?: AuditOf<T> | undefined;
  respond?: ((record: T) => IdempotentResponse) | undefined;
}

export interface WebhookEndpointStore {
  /** Inserts unless the owner already has `max` endpoints (false then), as one step on every node. */
  insertEndpoint(
    endpoint: WebhookEndpoint,
    max: number,
    records?: ChangeRecords<WebhookEndpoint>,
  ): Promise<boolean>;
  listEndpoints(owner: EndpointOwner, limit: number, after?: ListPosition): Promise<WebhookEndpoint[]>;
  getEndpoint(owner: EndpointOwner, id: string): Promise<WebhookEndpoint | null>;
  /** Replaces the endpoint with what `change` makes of it, atomically; null when there is none. */
  changeEndpoint(
    owner: EndpointOwner,
    id: string,
    change: (current: WebhookEndpoint) => WebhookEndpoint,
    records?: ChangeRecords<WebhookEndpoint>,
  ): Promise<WebhookEndpoint | null>;
  /** Deletes the endpoint and its pending deliveries; false when there is none. */
  deleteEndpoint(
    owner: EndpointOwner,
    id: string,
    records?: ChangeRecords<WebhookEndpoint>,
  ): Promise<boolean>;
  listAttempts(
    endpointId: string,
    limit: number,
    after?: { at: number; id: string },
  ): Promise<WebhookAttempt[]>;
  /** Queues `event` for this endpoint only (`webhook.test`); the message id. */
  enqueueFor(
    endpoint: WebhookEndpoint,
    event: WebhookEvent,
    records?: ChangeRecords<QueuedWebhookMessage>,
  ): Promise<string>;
  /**
   * Sends the message again to the owner's endpoints that had it (to `endpointId` only, when given):
   * the number of deliveries queued again; 0 when the owner had no delivery of it.
   */
  resend(
    owner: EndpointOwner,
    messageId: string,
    now: number,
    endpointId?: string,
    records?: ChangeRecords<QueuedWebhookMessage>,
  ): Promise<number>;
}

export interface WebhookQueueStore {
  /** Records an event outside any change (an alert); ignored when its dedupe key was seen before. */
  enqueue(event: WebhookEvent): Promise<void>;
  /** Takes up to `limit` due deliveries for this node, each held for `leaseMs`. */
  claimDue(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  record(outcome: AttemptOutcome): Promise<void>;
  /** Deliveries waiting to be sent. */
  depth(): Promise<number>;
  /** Forgets attempts, finished deliveries and messages older than `before`. */
  prune(before: number): Promise<void>;
  /** Announces (`credits.grant_expired`) each grant expired by `now` and not announced yet. */
  announceExpiredGrants(now: number): Promise<number>;
}

export type WebhookStore = WebhookEndpointStore & WebhookQueueStore;
