import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { type Static, Type } from "typebox";
import { DEFAULT_SERVICE_TOKEN_SCOPES, SERVICE_TOKEN_SCOPES } from "../../domain/service-token-scopes.js";
import type { IdempotentCreates } from "../../services/idempotency.js";
import type { ServiceTokenService } from "../../services/service-tokens.js";
import type { IdempotentResponse } from "../../store/idempotency-store.js";
import type { ServiceTokenRecord } from "../../store/service-token-store.js";
import { adminActor, adminIdempotentCreate, registerAdminGuard } from "../admin-guard.js";
import { IdempotencyKeyHeaders } from "../idempotency-key.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { errorResponses, named, NoContent } from "../schemas.js";
import { ADMIN_REFUSALS, adminSecurity } from "./admin-organizations.js";

const Scope = Type.Union([Type.Literal("authorize"), Type.Literal("provision")], {
  description: `One of ${SERVICE_TOKEN_SCOPES.join(", ")}.`,
});
const tokenExample = {
  id: "stk_5mQ8sT1xZ7bN3cP5dR9vJ2",
  name: "billing",
  scopes: ["provision"],
  created_at: "2026-11-22T11:36:56.123Z",
  revoked_at: null,
};

const CreateServiceTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, description: "What the token is for." }),
    scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 2, uniqueItems: true })),
  },
  {
    ...named("CreateServiceTokenRequest", "A new service token; scopes default to authorize."),
    additionalProperties: false,
    examples: [{ name: "billing", scopes: ["provision"] }],
  },
);
type CreateServiceTokenBody = Static<typeof CreateServiceTokenBody>;

const ServiceTokenBody = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    scopes: Type.Array(Scope),
    created_at: Type.String({ format: "date-time" }),
    revoked_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  },
  { ...named("ServiceToken", "A service token, never the token itself."), examples: [tokenExample] },
);

const CreatedServiceTokenBody = Type.Object(
  { ...ServiceTokenBody.properties, token: Type.String({ description: "The token: shown only here." }) },
  {
    ...named("CreatedServiceToken", "A new service token with the token, shown only here."),
    examples: [{ ...tokenExample, token: "lkst_8hBywxUJK12FosEYO3pnCq7Tt9Vb2mXw0kLs1" }],
  },
);

const ServiceTokenList = Type.Object(
  { data: Type.Array(ServiceTokenBody) },
  {
    ...named("ServiceTokenList", "Every service token, oldest first."),
    examples: [{ data: [tokenExample] }],
  },
);

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const tokenJson = (record: ServiceTokenRecord) => ({
  id: record.id,
  name: record.name,
  scopes: [...record.scopes],
  created_at: iso(record.createdAt) as string,
  revoked_at: iso(record.revokedAt),
});

/** `/v1/admin/service-tokens`: what `latchkey service-token` does, for `--url` and the platform's code. */
export async function adminServiceTokenRoutes(
  app: FastifyInstance,
  options: { serviceTokens: ServiceTokenService; idempotency: IdempotentCreates },
): Promise<void> {
  const { serviceTokens, idempotency } = options;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  registerAdminGuard(app, serviceTokens);
  sendNoStore(routes);
  const tags = ["Provisioning"];

  routes.post(
    "/v1/admin/service-tokens",
    {
      schema: {
        operationId: "createServiceToken",
        summary: "Create a service token",
        tags,
        security: adminSecurity,
        headers: IdempotencyKeyHeaders,
        body: CreateServiceTokenBody,
        response: {
          201: CreatedServiceTokenBody,
          ...errorResponses(
            ...ADMIN_REFUSALS,
            "invalid_request",
            "idempotency_key_reused",
            "idempotency_key_in_use",
            "payload_too_large",
            "unsupported_media_type",
          ),
        },
      },
    },
    async (request, reply) => {
      const body: CreateServiceTokenBody = request.body;
      type Answer = ReturnType<typeof tokenJson> & { token: string };
      const answer = await adminIdempotentCreate(
        idempotency,
        request,
        reply,
        true,
        async (keep?: (response: Answer) => IdempotentResponse) => {
          const name = body.name.trim();
          const scopes = body.scopes ?? DEFAULT_SERVICE_TOKEN_SCOPES;
          const { record, token } = await serviceTokens.create(
            name,
            adminActor(request),
            scopes,
            keep && ((made) => keep({ ...tokenJson(made.record), token: made.token })),
          );
          return { ...tokenJson(record), token };
        },
      );
      return reply.code(201).send(answer);
    },
  );
  routes.get(
    "/v1/admin/service-tokens",
    {
      schema: {
        operationId: "listServiceTokens",
        summary: "Every service token, never the tokens",
        tags,
        security: adminSecurity,
        response: { 200: ServiceTokenList, ...errorResponses(...ADMIN_REFUSALS) },
      },
    },
    async () => ({ data: (await serviceTokens.list()).map(tokenJson) }),
  );
  rejectOtherMethods(routes, "/v1/admin/service-tokens", ["GET", "POST"]);

  routes.delete(
    "/v1/admin/service-tokens/:id",
    {
      schema: {
        operationId: "revokeServiceToken",
        summary: "Revoke a service token; every node refuses it from the next request",
        tags,
        security: adminSecurity,
        params: Type.Object({ id: Type.String({ pattern: "^stk_[A-Za-z0-9]{1,64}$" }) }),
        response: { 204: NoContent, ...errorResponses(...ADMIN_REFUSALS, "invalid_request", "not_found") },
      },
    },
    async (request, reply) => {
      await serviceTokens.revoke(request.params.id, adminActor(request));
      return reply.code(204).send(null);
    },
  );
  rejectOtherMethods(routes, "/v1/admin/service-tokens/:id", ["DELETE"]);
}
