import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ErrorCode } from "../../domain/errors.js";
import type { RecordResponse } from "../../services/idempotency.js";
import type { OperationPolicy } from "../../services/operations.js";
import type { EndpointCaller, WebhookEndpoints } from "../../services/webhook-endpoints.js";
import type { WebhookEndpoint } from "../../store/webhook-store.js";
import { IdempotencyKeyHeaders } from "../idempotency-key.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { errorResponses } from "../schemas.js";
import {
  attemptJson,
  CreatedWebhookEndpoint,
  EndpointDeleted,
  EndpointParams,
  endpointJson,
  MessageParams,
  messageJson,
  ResendAnswer,
  ResendQuery,
  RotatedWebhookSecret,
  WebhookAttemptList,
  WebhookEndpointCreateBody,
  WebhookEndpointList,
  WebhookEndpointRecord,
  WebhookEndpointUpdateBody,
  WebhookMessageRecord,
  WebhookPageQuery,
} from "../webhook-schemas.js";

/** Who calls a set of webhook routes and how: an organization's keys, or the platform's token. */
export interface WebhookRouteSet {
  /** `/v1` or `/v1/admin`. */
  base: string;
  /**
   * Whose endpoints a request reaches (the caller's organization, or null for the platform) and who
   * the audit trail names (the key, or `service_token:<id>`).
   */
  callerOf(request: FastifyRequest): EndpointCaller;
  /**
   * Runs a POST once per `Idempotency-Key` in the caller's own scope (the calling key, or the service
   * token): `secret` says the answer holds a signing secret, kept sealed for that caller only.
   */
  idempotent<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    secret: boolean,
    create: (record?: RecordResponse<T>) => Promise<T>,
  ): Promise<T>;
  /** What a route demands of an organization's key; none for the platform's routes (their guard). */
  operation?: { read: OperationPolicy; write: OperationPolicy };
  security: Record<string, string[]>[];
  /** The refusals every route of the set may answer before its own. */
  refusals: readonly ErrorCode[];
  /** Operation ids are prefixed for the platform's set (`adminCreateWebhookEndpoint`). */
  idPrefix: string;
  tags: string[];
}

/** A create's answer: the endpoint and, this once, its signing secret. */
const createdJson = (endpoint: WebhookEndpoint) => ({ ...endpointJson(endpoint), secret: endpoint.secret });
type Created = ReturnType<typeof createdJson>;

/** A rotation's answer: the new secret, and when the replaced one stops signing. */
const rotatedJson = (rotated: WebhookEndpoint) => ({
  secret: rotated.secret,
  previous_secret_expires_at: new Date(rotated.previousSecretExpiresAt ?? rotated.updatedAt).toISOString(),
});
type Rotated = ReturnType<typeof rotatedJson>;

/**
 * The webhook routes (docs/webhooks.md), the same for an organization (`/v1/webhook-endpoints`) and
 * for the platform (`/v1/admin/webhook-endpoints`): endpoints, secret rotation, test, attempts, resend.
 */
export function registerWebhookRoutes(
  app: FastifyInstance,
  webhooks: WebhookEndpoints,
  set: WebhookRouteSet,
): void {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  sendNoStore(routes);
  const collection = `${set.base}/webhook-endpoints`;
  const one = `${collection}/:id`;
  const config = (kind: "read" | "write") =>
    set.operation ? { config: { operation: set.operation[kind] } } : {};
  const common = (operationId: string, summary: string) => ({
    operationId: set.idPrefix
      ? `${set.idPrefix}${operationId}`
      : operationId[0]!.toLowerCase() + operationId.slice(1),
    summary,
    tags: set.tags,
    security: set.security,
  });
  // A malformed query, or a body sent where none is expected, is a 400 on every route.
  const refusals = (...codes: ErrorCode[]) => errorResponses(...set.refusals, "invalid_request", ...codes);
  const bodyRefusals = ["invalid_request", "payload_too_large", "unsupported_media_type"] as const;
  // Every POST takes an Idempotency-Key: a retry after a lost answer changes nothing twice.
  const idempotencyRefusals = ["idempotency_key_reused", "idempotency_key_in_use"] as const;

  routes.post(
    collection,
    {
      ...config("write"),
      schema: {
        ...common("CreateWebhookEndpoint", "Subscribe an endpoint to events"),
        description:
          "Answers the signing secret (`whsec_...`) this once. The URL must be https and resolve only to public " +
          "addresses (400 `webhook_url_not_allowed`); at most 20 endpoints (409 `webhook_endpoint_quota_exceeded`).",
        headers: IdempotencyKeyHeaders,
        body: WebhookEndpointCreateBody,
        response: {
          201: CreatedWebhookEndpoint,
          ...refusals(
            ...bodyRefusals,
            ...idempotencyRefusals,
            "webhook_url_not_allowed",
            "webhook_endpoint_quota_exceeded",
          ),
        },
      },
    },
    async (request, reply) => {
      // The answer holds the signing secret: kept sealed, for this caller only, for the key's window.
      const answer = await set.idempotent(request, reply, true, async (record?: RecordResponse<Created>) =>
        createdJson(
          await webhooks.create(
            set.callerOf(request),
            request.body,
            record && ((made) => record(createdJson(made))),
          ),
        ),
      );
      return reply.code(201).send(answer);
    },
  );

  routes.get(
    collection,
    {
      ...config("read"),
      schema: {
        ...common("ListWebhookEndpoints", "Webhook endpoints, newest first"),
        querystring: WebhookPageQuery,
        response: { 200: WebhookEndpointList, ...refusals("invalid_request") },
      },
    },
    async (request) => {
      const page = await webhooks.list(set.callerOf(request).owner, {
        count: request.query.count ?? 10,
        pageStart: request.query.page_start,
      });
      return { data: page.endpoints.map(endpointJson), pagination: { next_page_start: page.nextPageStart } };
    },
  );
  rejectOtherMethods(routes, collection, ["GET", "POST"]);

  routes.get(
    one,
    {
      ...config("read"),
      schema: {
        ...common("GetWebhookEndpoint", "One webhook endpoint"),
        params: EndpointParams,
        response: { 200: WebhookEndpointRecord, ...refusals("not_found") },
      },
    },
    async (request) => endpointJson(await webhooks.get(set.callerOf(request).owner, request.params.id)),
  );

  routes.patch(
    one,
    {
      ...config("write"),
      schema: {
        ...common("UpdateWebhookEndpoint", "Change, disable or enable a webhook endpoint"),
        description:
          "Members omitted are kept. Enabling an endpoint disabled after failing starts its count afresh.",
        params: EndpointParams,
        body: WebhookEndpointUpdateBody,
        response: {
          200: WebhookEndpointRecord,
          ...refusals(...bodyRefusals, "not_found", "webhook_url_not_allowed"),
        },
      },
    },
    async (request) =>
      endpointJson(await webhooks.update(set.callerOf(request), request.params.id, request.body)),
  );

  routes.delete(
    one,
    {
      ...config("write"),
      schema: {
        ...common("DeleteWebhookEndpoint", "Delete a webhook endpoint and what it still had to send"),
        params: EndpointParams,
        response: { 204: EndpointDeleted, ...refusals(...bodyRefusals, "not_found") },
      },
    },
    async (request, reply) => {
      await webhooks.remove(set.callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
  rejectOtherMethods(routes, one, ["GET", "PATCH", "DELETE"]);

  routes.post(
    `${one}/rotate-secret`,
    {
      ...config("write"),
      schema: {
        ...common("RotateWebhookSecret", "A new signing secret; the old one keeps signing for 24 hours"),
        params: EndpointParams,
        headers: IdempotencyKeyHeaders,
        response: {
          200: RotatedWebhookSecret,
          ...refusals(...bodyRefusals, ...idempotencyRefusals, "not_found"),
        },
      },
    },
    async (request, reply) =>
      set.idempotent(request, reply, true, async (record?: RecordResponse<Rotated>) =>
        rotatedJson(
          await webhooks.rotateSecret(
            set.callerOf(request),
            request.params.id,
            record && ((rotated) => record(rotatedJson(rotated))),
          ),
        ),
      ),
  );
  rejectOtherMethods(routes, `${one}/rotate-secret`, ["POST"]);

  routes.post(
    `${one}/test`,
    {
      ...config("write"),
      schema: {
        ...common("TestWebhookEndpoint", "Send a webhook.test event to this endpoint"),
        params: EndpointParams,
        headers: IdempotencyKeyHeaders,
        response: {
          202: WebhookMessageRecord,
          ...refusals(...bodyRefusals, ...idempotencyRefusals, "not_found"),
        },
      },
    },
    async (request, reply) => {
      type Message = ReturnType<typeof messageJson>;
      const answer = await set.idempotent(request, reply, false, async (record?: RecordResponse<Message>) =>
        messageJson(
          await webhooks.test(
            set.callerOf(request),
            request.params.id,
            record && ((message) => record(messageJson(message))),
          ),
        ),
      );
      return reply.code(202).send(answer);
    },
  );
  rejectOtherMethods(routes, `${one}/test`, ["POST"]);

  routes.get(
    `${one}/attempts`,
    {
      ...config("read"),
      schema: {
        ...common("ListWebhookAttempts", "An endpoint's delivery attempts (30 days), newest first"),
        params: EndpointParams,
        querystring: WebhookPageQuery,
        response: { 200: WebhookAttemptList, ...refusals("invalid_request", "not_found") },
      },
    },
    async (request) => {
      const page = await webhooks.attempts(set.callerOf(request).owner, request.params.id, {
        count: request.query.count ?? 10,
        pageStart: request.query.page_start,
      });
      return { data: page.attempts.map(attemptJson), pagination: { next_page_start: page.nextPageStart } };
    },
  );
  rejectOtherMethods(routes, `${one}/attempts`, ["GET"]);

  const resend = `${set.base}/webhook-messages/:id/resend`;
  routes.post(
    resend,
    {
      ...config("write"),
      schema: {
        ...common("ResendWebhookMessage", "Send a message again, from the start of the retry schedule"),
        description: "The message keeps its id (`webhook-id`), so a receiver that had it can tell.",
        params: MessageParams,
        querystring: ResendQuery,
        headers: IdempotencyKeyHeaders,
        response: {
          202: ResendAnswer,
          ...refusals(...bodyRefusals, ...idempotencyRefusals, "not_found"),
        },
      },
    },
    async (request, reply) => {
      const answer = await set.idempotent(
        request,
        reply,
        false,
        async (record?: RecordResponse<{ queued: number }>) => ({
          queued: await webhooks.resend(
            set.callerOf(request),
            request.params.id,
            request.query.endpoint_id,
            record && ((queued) => record({ queued })),
          ),
        }),
      );
      return reply.code(202).send(answer);
    },
  );
  rejectOtherMethods(routes, resend, ["POST"]);
}
