import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Clock } from "../domain/clock.js";
import { randomBase62 } from "../domain/credentials.js";
import { invalidRequest, LatchkeyError } from "../domain/errors.js";
import { hostOf, isPublicAddress, webhookUrlProblem } from "../domain/webhook-addresses.js";
import { PLATFORM_ONLY_EVENT_TYPES, type WebhookEventType } from "../domain/webhook-events.js";
import { newWebhookSecret } from "../domain/webhook-secret.js";
import type {
  EndpointOwner,
  WebhookAttempt,
  WebhookEndpoint,
  WebhookEndpointStore,
} from "../store/webhook-store.js";
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

export interface WebhookEndpoints {
  create(owner: EndpointOwner, input: EndpointInput): Promise<WebhookEndpoint>;
  list(
    owner: EndpointOwner,
    page: Page,
  ): Promise<{ endpoints: WebhookEndpoint[]; nextPageStart: string | null }>;
  get(owner: EndpointOwner, id: string): Promise<WebhookEndpoint>;
  update(owner: EndpointOwner, id: string, change: EndpointChange): Promise<WebhookEndpoint>;
  remove(owner: EndpointOwner, id: string): Promise<void>;
  /** A new secret (returned once); the previous one keeps signing for 24 hours. */
  rotateSecret(owner: EndpointOwner, id: string): Promise<WebhookEndpoint>;
  /** Queues a `webhook.test` message to this endpoint; the message. */
  test(
    owner: EndpointOwner,
    id: string,
  ): Promise<{ id: string; type: "webhook.test"; at: number; data: Record<string, unknown> }>;
  attempts(
    owner: EndpointOwner,
    id: string,
    page: Page,
  ): Promise<{ attempts: WebhookAttempt[]; nextPageStart: string | null }>;
  /** Queues the message again to the owner's endpoints that had it (or to `endpointId`). */
  resend(owner: EndpointOwner, messageId: string, endpointId?: string): Promise<number>;
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

  const found = async (owner: EndpointOwner, id: string) => {
    const endpoint = isEndpointId(id) ? await store.getEndpoint(owner, id) : null;
    if (!endpoint) throw notFound();
    return endpoint;
  };

  return {
    async create(owner, input) {
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
      if (!(await store.insertEndpoint(endpoint, MAX_WEBHOOK_ENDPOINTS)))
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

    async update(owner, id, change) {
      if (change.events) checkEvents(owner, change.events);
      if (change.url !== undefined) await checkUrl(change.url);
      await found(owner, id);
      const now = clock.now();
      const changed = await store.changeEndpoint(owner, id, (current) => {
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
      });
      if (!changed) throw notFound();
      return changed;
    },

    async remove(owner, id) {
      if (!isEndpointId(id) || !(await store.deleteEndpoint(owner, id))) throw notFound();
    },

    async rotateSecret(owner, id) {
      await found(owner, id);
      const now = clock.now();
      const rotated = await store.changeEndpoint(owner, id, (current) => ({
        ...current,
        secret: newWebhookSecret(),
        previousSecret: current.secret,
        previousSecretExpiresAt: now + SECRET_OVERLAP_MS,
        updatedAt: now,
      }));
      if (!rotated) throw notFound();
      return rotated;
    },

    async test(owner, id) {
      const endpoint = await found(owner, id);
      const at = clock.now();
      const data = { organization_id: owner, endpoint_id: endpoint.id };
      const messageId = await store.enqueueFor(endpoint, { type: "webhook.test", orgId: owner, at, data });
      return { id: messageId, type: "webhook.test", at, data };
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

    async resend(owner, messageId, endpointId) {
      const queued = /^msg_[A-Za-z0-9]{1,64}$/.test(messageId)
        ? await store.resend(owner, messageId, clock.now(), endpointId)
        : 0;
      if (queued === 0) throw new LatchkeyError("not_found", "No such message was sent to your endpoints.");
      return queued;
    },
  };
}
