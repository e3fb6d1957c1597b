import { randomUUID } from "node:crypto";
import { allPages } from "./pages.js";
import type { RequestSpec, Transport } from "./transport.js";
import type {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointRequest,
  RotatedWebhookSecret,
  UpdateWebhookEndpointRequest,
  WebhookAttemptPage,
  WebhookEndpoint,
  WebhookEndpointPage,
  WebhookMessage,
  WebhookPageOptions,
} from "./webhook-types.js";

function pageQuery(options: WebhookPageOptions): URLSearchParams {
  const query = new URLSearchParams();
  if (options.count !== undefined) query.set("count", String(options.count));
  if (options.pageStart !== undefined) query.set("page_start", options.pageStart);
  return query;
}

/**
 * Webhook endpoints, their attempts, tests and resends (docs/webhooks.md): `client.webhooks` for the
 * organization of the client's key (`webhooks:read`, `webhooks:create_update`), `client.admin.webhooks`
 * for the platform's endpoints, which receive every organization's events (service token, `provision`).
 */
export class WebhooksResource {
  readonly #transport: Transport;
  readonly #base: string;
  readonly #authentication: RequestSpec["authentication"];

  /** @internal Built by `LatchkeyClient` and `AdminResource`. */
  constructor(transport: Transport, base: "/v1" | "/v1/admin") {
    this.#transport = transport;
    this.#base = base;
    this.#authentication = base === "/v1" ? "basic" : "service-token";
  }

  #send<T>(spec: Omit<RequestSpec, "authentication" | "group">, kind: "read" | "write"): Promise<T> {
    return this.#transport.request({
      ...spec,
      authentication: this.#authentication,
      ...(this.#authentication === "basic" ? { group: `webhook:${kind}` } : {}),
    });
  }

  #endpoint(id: string, rest = ""): string {
    if (id === "") throw new TypeError("An endpoint id is required.");
    return `${this.#base}/webhook-endpoints/${encodeURIComponent(id)}${rest}`;
  }

  /**
   * Subscribes an endpoint; its signing `secret` is shown only here. Every POST carries an
   * `Idempotency-Key` (one per call unless given), so a retry after a lost answer changes nothing twice.
   */
  create(
    request: CreateWebhookEndpointRequest,
    idempotencyKey = randomUUID(),
  ): Promise<CreatedWebhookEndpoint> {
    return this.#send(
      { method: "POST", path: `${this.#base}/webhook-endpoints`, body: request, idempotencyKey },
      "write",
    );
  }

  /** One page of endpoints, newest first. */
  list(options: WebhookPageOptions = {}): Promise<WebhookEndpointPage> {
    return this.#send(
      { method: "GET", path: `${this.#base}/webhook-endpoints`, query: pageQuery(options) },
      "read",
    );
  }

  /** Every endpoint, page after page. */
  async *listAll(): AsyncGenerator<WebhookEndpoint> {
    for await (const page of allPages((pageStart) =>
      this.list(pageStart === undefined ? {} : { pageStart }),
    )) {
      yield* page.data;
    }
  }

  get(id: string): Promise<WebhookEndpoint> {
    return this.#send({ method: "GET", path: this.#endpoint(id) }, "read");
  }

  /** Changes the members given; `{ disabled: false }` enables an endpoint again. */
  update(id: string, changes: UpdateWebhookEndpointRequest): Promise<WebhookEndpoint> {
    return this.#send({ method: "PATCH", path: this.#endpoint(id), body: changes }, "write");
  }

  /** Deletes the endpoint and what it still had to send. */
  async delete(id: string): Promise<void> {
    await this.#send({ method: "DELETE", path: this.#endpoint(id) }, "write");
  }

  /** A new signing secret (shown only here); the previous one keeps signing for 24 hours. */
  rotateSecret(id: string, idempotencyKey = randomUUID()): Promise<RotatedWebhookSecret> {
    return this.#send(
      { method: "POST", path: this.#endpoint(id, "/rotate-secret"), idempotencyKey },
      "write",
    );
  }

  /** Queues a `webhook.test` event to the endpoint. */
  test(id: string, idempotencyKey = randomUUID()): Promise<WebhookMessage> {
    return this.#send({ method: "POST", path: this.#endpoint(id, "/test"), idempotencyKey }, "write");
  }

  /** One page of the endpoint's delivery attempts (kept 30 days), newest first. */
  attempts(id: string, options: WebhookPageOptions = {}): Promise<WebhookAttemptPage> {
    return this.#send(
      { method: "GET", path: this.#endpoint(id, "/attempts"), query: pageQuery(options) },
      "read",
    );
  }

  /** Sends a message again (same `webhook-id`), to every endpoint that had it or to `endpointId`. */
  async resend(messageId: string, endpointId?: string, idempotencyKey = randomUUID()): Promise<number> {
    const query = new URLSearchParams();
    if (endpointId !== undefined) query.set("endpoint_id", endpointId);
    const answer = await this.#send<{ queued: number }>(
      {
        method: "POST",
        path: `${this.#base}/webhook-messages/${encodeURIComponent(messageId)}/resend`,
        query,
        idempotencyKey,
      },
      "write",
    );
    return answer.queued;
  }
}
