import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Clock } from "../domain/clock.js";
import { randomBase62 } from "../domain/credentials.js";
import { invalidRequest, LatchkeyError } from "../domain/errors.js";
import { hostOf, isPublicAddress, webhookUrlProblem } from "../domain/webhook-addresses.js";
import { PLATFORM_ONLY_EVENT_TYPES, type WebhookEventType } from "../domain/webhook-events.js";
import { newWebhookSecret } from "../domain/webhook-secret.js";
import type { AuditAction } from "../domain/audit.js";
import type { IdempotentResponse } from "../store/idempotency-store.js";
import type {
  EndpointOwner,
  QueuedWebhookMessage,
  WebhookAttempt,
  WebhookEndpoint,
  WebhookEndpointStore,
} from "../store/webhook-store.js";
import { webhookEndpointSnapshot, webhookMessageSnapshot } from "./audit-snapshots.js";
import { auditOf } from "./audit-trail.js";
import { decodeCursor, encodeCursor } from "./list-cursor.js";

/** Endpoints per organization (and for the platform). */
export const MAX_WEBHOOK_ENDPOINTS = 20;
/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

const isEndpointId = (value: string) => /^whe_[A-Za-z0-9]{1,64}$/.test(value);
const isAttemptId = (value: string) => /^wha_[A-Za-z0-9]{1,64}$/.test(value);

export interface EndpointInput {
  url: string;
  events: WebhookEventType[];
  description?: string | null;
  disabled?: boolean;
}

export type EndpointChange = Partial<EndpointInput>;

export interface Page {
  count: number;
  pageStart?: string | undefined;
}

/** Who changes endpoints: whose they are, and who the audit trail names. */
export interface EndpointCaller {
  /** The organization, or null for the platform's endpoints. */
  owner: EndpointOwner;
  /** The audit actor: the calling key's id, `user:<id>` (console) or `service_token:<id>`. */
  actor: string;
}

/** A webhook.test message as queued. */
export interface TestMessage {
  id: string;
  type: "webhook.test";
  at: number;
  data: Record<string, unknown>;
}

/**
 * Every change is audited as `caller.actor`, in the change's transaction (never a secret in the entry).
 * `respond`: the first answer of an idempotent POST, recorded in that same transaction.
 */
export interface WebhookEndpoints {
  create(
    caller: EndpointCaller,
    input: EndpointInput,
    respond?: (endpoint: WebhookEndpoint) => IdempotentResponse,
  ): Promise<WebhookEndpoint>;
  list(
    owner: EndpointOwner,
    page: Page,
  ): Promise<{ endpoints: WebhookEndpoint[]; nextPageStart: string | null }>;
  get(owner: EndpointOwner, id: string): Promise<WebhookEndpoint>;
  update(caller: EndpointCaller, id: string, change: EndpointChange): Promise<WebhookEndpoint>;
  remove(caller: EndpointCaller, id: string): Promise<void>;
  /** A new secret (returned once); the previous one keeps signing for 24 hours. */
  rotateSecret(
    caller: EndpointCaller,
    id: string,
    respond?: (endpoint: WebhookEndpoint) => IdempotentResponse,
  ): Promise<WebhookEndpoint>;
  /** Queues a `webhook.test` message to this endpoint; the message. */
  test(
    caller: EndpointCaller,
    id: string,
    respond?: (message: TestMessage) => IdempotentResponse,
  ): Promise<TestMessage>;
  attempts(
    owner: EndpointOwner,
    id: string,
    page: Page,
  ): Promise<{ attempts: WebhookAttempt[]; nextPageStart: string | null }>;
  /** Queues the message again to the owner's endpoints that had it (or to `endpointId`); how many. */
  resend(
    caller: EndpointCaller,
    messageId: string,
    endpointId?: string,
    respond?: (queued: number) => IdempotentResponse,
  ): Promise<number>;
}

export interface WebhookEndpointDeps {
  store: WebhookEndpointStore;
  clock: Clock;
  /** LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: http and private addresses allowed. */
  allowPrivate: boolean;
  /** Resolves a host name to its addresses (the system resolver; tests may pass their own). */
  resolve?: (host: string) => Promise<string[]>;
}

const systemResolve = async (host: string) =>
  (await lookup(host, { all: true })).map((entry) => entry.address);

/** 409: the owner already has its 20 endpoints. */
export function webhookEndpointQuotaExceeded(): LatchkeyError {
  return new LatchkeyError(
    "webhook_endpoint_quota_exceeded",
    `At most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints are allowed; delete one first.`,
  );
}

const notFound = () => new LatchkeyError("not_found", "No such webhook endpoint.");

/**
 * Organizations' and the platform's webhook endpoints (docs/webhooks.md). A URL is checked when set:
 * https, and a host whose every address is public, unless private addresses are allowed; each delivery
 * checks the addresses again as it connects.
 */
export function createWebhookEndpoints(deps: WebhookEndpointDeps): WebhookEndpoints {
  const { store, clock } = deps;
  const resolve = deps.resolve ?? systemResolve;

  async function checkUrl(url: string): Promise<void> {
    const problem = webhookUrlProblem(url, deps.allowPrivate);
    if (problem) throw new LatchkeyError("webhook_url_not_allowed", problem);
    if (deps.allowPrivate) return;
    const host = hostOf(url);
    let addresses: string[];
    try {
      addresses = isIP(host) === 0 ? await resolve(host) : [host];
    } catch {
      throw new LatchkeyError("webhook_url_not_allowed", `The webhook URL's host ${host} does not resolve.`);
    }
    const refused = addresses.find((address) => !isPublicAddress(address));
    if (refused !== undefined || addresses.length === 0) {
      throw new LatchkeyError(
        "webhook_url_not_allowed",
        `The webhook URL's host resolves to ${refused ?? "no address"}, a private, loopback, link-local or reserved address.`,
      );
    }
  }

  function checkEvents(owner: EndpointOwner, events: readonly WebhookEventType[]): void {
    if (owner === null) return;
    events.forEach((type, index) => {
      if (PLATFORM_ONLY_EVENT_TYPES.includes(type)) {
        throw invalidRequest(`${type} is sent to the platform's endpoints only.`, `/events/${index}`);
      }
    });
  }

  const endpointAudit = (caller: EndpointCaller, action: AuditAction) =>
    auditOf<WebhookEndpoint>(clock, {
      actor: caller.actor,
      orgId: caller.owner,
      action,
      targetOf: (endpoint) => endpoint.id,
      snapshot: webhookEndpointSnapshot,
    });
  const messageAudit = (
    caller: EndpointCaller,
    action: AuditAction,
    targetOf: (m: QueuedWebhookMessage) => string,
  ) =>
    auditOf<QueuedWebhookMessage>(clock, {
      actor: caller.actor,
      orgId: caller.owner,
      action,
      targetOf,
      snapshot: webhookMessageSnapshot,
    });

  const found = async (owner: EndpointOwner, id: string) => {
    const endpoint = isEndpointId(id) ? await store.getEndpoint(owner, id) : null;
    if (!endpoint) throw notFound();
    return endpoint;
  };

  return {
    async create(caller, input, respond) {
      const { owner } = caller;
      checkEvents(owner, input.events);
      await checkUrl(input.url);
      const now = clock.now();
      const endpoint: WebhookEndpoint = {
        id: `whe_${randomBase62(22)}`,
        orgId: owner,
        url: input.url,
        events: [...new Set(input.events)],
        description: input.description?.trim() ? input.description : null,
        enabled: input.disabled !== true,
        secret: newWebhookSecret(),
        previousSecret: null,
        previousSecretExpiresAt: null,
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      };
      const records = { audit: endpointAudit(caller, "webhook_endpoint.create"), respond };
      if (!(await store.insertEndpoint(endpoint, MAX_WEBHOOK_ENDPOINTS, records)))
        throw webhookEndpointQuotaExceeded();
      return endpoint;
    },

    async list(owner, { count, pageStart }) {
      const after = pageStart === undefined ? undefined : decodeCursor(pageStart, isEndpointId);
      const rows = await store.listEndpoints(owner, count + 1, after);
      const endpoints = rows.slice(0, count);
      const last = endpoints.at(-1);
      return {
        endpoints,
        nextPageStart:
          rows.length > count && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
      };
    },

    get: found,

    async update(caller, id, change) {
      const { owner } = caller;
      if (change.events) checkEvents(owner, change.events);
      if (change.url !== undefined) await checkUrl(change.url);
      await found(owner, id);
      const now = clock.now();
      const changed = await store.changeEndpoint(
        owner,
        id,
        (current) => {
          const enabled = change.disabled === undefined ? current.enabled : !change.disabled;
          return {
            ...current,
            url: change.url ?? current.url,
            events: change.events ? [...new Set(change.events)] : current.events,
            description:
              change.description === undefined
                ? current.description
                : change.description?.trim()
                  ? change.description
                  : null,
            enabled,
            // Enabled again: its five days of failures start over.
            failingSince: enabled && !current.enabled ? null : current.failingSince,
            updatedAt: now,
          };
        },
        { audit: endpointAudit(caller, "webhook_endpoint.update") },
      );
      if (!changed) throw notFound();
      return changed;
    },

    async remove(caller, id) {
      const audit = endpointAudit(caller, "webhook_endpoint.delete");
      if (!isEndpointId(id) || !(await store.deleteEndpoint(caller.owner, id, { audit }))) throw notFound();
    },

    async rotateSecret(caller, id, respond) {
      const { owner } = caller;
      await found(owner, id);
      const now = clock.now();
      const rotated = await store.changeEndpoint(
        owner,
        id,
        (current) => ({
          ...current,
          secret: newWebhookSecret(),
          previousSecret: current.secret,
          previousSecretExpiresAt: now + SECRET_OVERLAP_MS,
          updatedAt: now,
        }),
        { audit: endpointAudit(caller, "webhook_endpoint.rotate_secret"), respond },
      );
      if (!rotated) throw notFound();
      return rotated;
    },

    async test(caller, id, respond) {
      const { owner } = caller;
      const endpoint = await found(owner, id);
      const at = clock.now();
      const data = { organization_id: owner, endpoint_id: endpoint.id };
      const messageOf = (messageId: string): TestMessage => ({
        id: messageId,
        type: "webhook.test",
        at,
        data,
      });
      const messageId = await store.enqueueFor(
        endpoint,
        { type: "webhook.test", orgId: owner, at, data },
        {
          audit: messageAudit(caller, "webhook_endpoint.test", (queued) => queued.endpointId ?? endpoint.id),
          respond: respond && ((queued) => respond(messageOf(queued.messageId))),
        },
      );
      return messageOf(messageId);
    },

    async attempts(owner, id, { count, pageStart }) {
      await found(owner, id);
      const after = pageStart === undefined ? undefined : decodeCursor(pageStart, isAttemptId);
      const rows = await store.listAttempts(id, count + 1, after && { at: after.createdAt, id: after.id });
      const attempts = rows.slice(0, count);
      const last = attempts.at(-1);
      return {
        attempts,
        nextPageStart: rows.length > count && last ? encodeCursor({ createdAt: last.at, id: last.id }) : null,
      };
    },

    async resend(caller, messageId, endpointId, respond) {
      const records = {
        audit: messageAudit(caller, "webhook_message.resend", (resent) => resent.messageId),
        respond: respond && ((resent: QueuedWebhookMessage) => respond(resent.queued)),
      };
      const queued = /^msg_[A-Za-z0-9]{1,64}$/.test(messageId)
        ? await store.resend(caller.owner, messageId, clock.now(), endpointId, records)
        : 0;
      if (queued === 0) throw new LatchkeyError("not_found", "No such message was sent to your endpoints.");
      return queued;
    },
  };
}
