import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { Clock } from "../../domain/clock.js";
import { parsePermissionFilter } from "../../domain/permissions.js";
import type { IdempotentCreates } from "../../services/idempotency.js";
import type { KeyService } from "../../services/key-service.js";
import { KEY_OPERATIONS } from "../../services/operations.js";
import { toKeyResponse } from "../key-response.js";
import { IdempotencyKeyHeaders, idempotentCreate } from "../idempotency-key.js";
import { callerOf } from "../management-guard.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import {
  CreatedKeyRecord,
  errorResponses,
  KeyConfigurationBody,
  KeyIdParams,
  KeyList,
  KeyRecord,
  ListKeysQuery,
  METADATA_FILTER,
  NoContent,
  RolledKeyRecord,
  RollKeyBody,
} from "../schemas.js";

const security = [{ basicAuth: [] }];

/** The `metadata[<name>]=<value>` members of a list query (the schema checked their names and values). */
function metadataFilters(query: object): Record<string, string> {
  // No prototype: a member named `__proto__` is a filter like any other, not a change of prototype.
  const filters = Object.create(null) as Record<string, string>;
  for (const [member, value] of Object.entries(query)) {
    const name = METADATA_FILTER.exec(member)?.[1];
    if (name !== undefined && typeof value === "string") filters[name] = value;
  }
  return filters;
}
const tags = ["API keys"];

/** What a change of one existing key (update, roll, disable) may be refused with. */
const CHANGE_REFUSALS = [
  "invalid_request",
  "unauthorized",
  "missing_permission",
  "insufficient_authority",
  "not_found",
  "rate_limited",
  "database_unavailable",
  "service_unavailable",
] as const;

/** What a request with a body may also be refused with. */
const BODY_REFUSALS = ["payload_too_large", "unsupported_media_type"] as const;

/** `/v1/api-keys`: parse, call one service method, shape the reply. */
export async function apiKeyRoutes(
  app: FastifyInstance,
  { keys, idempotency, clock }: { keys: KeyService; idempotency: IdempotentCreates; clock: Clock },
): Promise<void> {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  // `expired` depends on the time of the response, not only on the record.
  const record = (key: Parameters<typeof toKeyResponse>[0]) => toKeyResponse(key, clock.now());

  sendNoStore(routes);

  routes.post(
    "/v1/api-keys",
    {
      config: { operation: KEY_OPERATIONS.createKey },
      schema: {
        operationId: "createApiKey",
        summary: "Create a key",
        tags,
        security,
        headers: IdempotencyKeyHeaders,
        body: KeyConfigurationBody,
        response: {
          200: CreatedKeyRecord,
          ...errorResponses(
            "invalid_request",
            "unauthorized",
            "missing_permission",
            "insufficient_authority",
            "key_quota_exceeded",
            "idempotency_key_reused",
            "idempotency_key_in_use",
            "payload_too_large",
            "unsupported_media_type",
            "rate_limited",
            "database_unavailable",
          ),
        },
      },
    },
    async (request, reply) => {
      // Before any replay: a kept answer never reaches a key without the authority to create it.
      keys.assertMayCreate(callerOf(request), request.body);
      // The response holds the new secret: kept sealed for the window (docs/keys.md).
      return idempotentCreate(idempotency, request, reply, true, async (keep) => {
        const created = await keys.create(
          callerOf(request),
          request.body,
          keep && (({ key, secret }) => keep({ ...record(key), api_key: secret })),
        );
        return { ...record(created.key), api_key: created.secret };
      });
    },
  );

  routes.get(
    "/v1/api-keys",
    {
      config: { operation: KEY_OPERATIONS.listKeys },
      schema: {
        operationId: "listApiKeys",
        summary: "List keys, newest first",
        tags,
        security,
        querystring: ListKeysQuery,
        response: {
          200: KeyList,
          ...errorResponses(
            "invalid_request",
            "unauthorized",
            "missing_permission",
            "rate_limited",
            "database_unavailable",
          ),
        },
      },
    },
    async (request) => {
      const query = request.query;
      const page = await keys.list(callerOf(request), {
        count: query.count,
        pageStart: query.page_start,
        includeDisabled: query.include_disabled,
        withPermission: parsePermissionFilter(query.with_permission ?? []),
        withMetadata: metadataFilters(query),
        namePrefix: query.name_prefix,
      });
      return { data: page.keys.map(record), pagination: { next_page_start: page.nextPageStart } };
    },
  );

  routes.get(
    "/v1/api-keys/:id",
    {
      config: { operation: KEY_OPERATIONS.getKey },
      schema: {
        operationId: "getApiKey",
        summary: "Retrieve a key",
        tags,
        security,
        params: KeyIdParams,
        response: {
          200: KeyRecord,
          ...errorResponses(
            "invalid_request",
            "unauthorized",
            "missing_permission",
            "not_found",
            "rate_limited",
            "database_unavailable",
          ),
        },
      },
    },
    async (request) =>
      record(await keys.get(callerOf(request), request.params.id, request.rateLimitDecision?.recordVersion)),
  );

  routes.post(
    "/v1/api-keys/:id",
    {
      config: { operation: KEY_OPERATIONS.updateKey },
      schema: {
        operationId: "updateApiKey",
        summary: "Replace a key's whole configuration",
        tags,
        security,
        params: KeyIdParams,
        body: KeyConfigurationBody,
        response: {
          200: KeyRecord,
          ...errorResponses(...CHANGE_REFUSALS, ...BODY_REFUSALS),
        },
      },
    },
    async (request) => record(await keys.update(callerOf(request), request.params.id, request.body)),
  );

  routes.delete(
    "/v1/api-keys/:id",
    {
      config: { operation: KEY_OPERATIONS.disableKey },
      schema: {
        operationId: "disableApiKey",
        summary: "Disable a key (it is never removed)",
        tags,
        security,
        params: KeyIdParams,
        response: {
          204: NoContent,
          ...errorResponses(...CHANGE_REFUSALS),
        },
      },
    },
    async (request, reply) => {
      await keys.disable(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  routes.post(
    "/v1/api-keys/:id/roll",
    {
      config: { operation: KEY_OPERATIONS.rollKey },
      // The body is optional (`overlap_seconds` defaults to an hour): no body is an empty one.
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
      schema: {
        operationId: "rollApiKey",
        summary: "Give a key a new secret, the old one working for an overlap",
        tags,
        security,
        params: KeyIdParams,
        body: RollKeyBody,
        response: {
          200: RolledKeyRecord,
          ...errorResponses(...CHANGE_REFUSALS, ...BODY_REFUSALS),
        },
      },
    },
    async (request) => {
      const rolled = await keys.roll(callerOf(request), request.params.id, request.body);
      return {
        ...record(rolled.key),
        api_key: rolled.secret,
        previous_secret_expires_at: new Date(rolled.previousSecretExpiresAt).toISOString(),
      };
    },
  );

  rejectOtherMethods(routes, "/v1/api-keys", ["GET", "POST"]);
  rejectOtherMethods(routes, "/v1/api-keys/:id/roll", ["POST"]);
  rejectOtherMethods(routes, "/v1/api-keys/:id", ["GET", "POST", "DELETE"]);
}
