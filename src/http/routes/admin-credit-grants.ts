import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { Clock } from "../../domain/clock.js";
import type { CreditGrants } from "../../services/credit-grants.js";
import type { IdempotentCreates } from "../../services/idempotency.js";
import type { Provisioning } from "../../services/provisioning.js";
import type { ServiceTokenService } from "../../services/service-tokens.js";
import type { IdempotentResponse } from "../../store/idempotency-store.js";
import { adminActor, adminIdempotentCreate, registerAdminGuard } from "../admin-guard.js";
import { creditGrantJson } from "../admin-responses.js";
import {
  CreditGrantBody,
  CreditGrantList,
  CreditGrantRecord,
  OrganizationParams,
  PageQuery,
} from "../admin-schemas.js";
import { IdempotencyKeyHeaders } from "../idempotency-key.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { errorResponses } from "../schemas.js";
import { ADMIN_REFUSALS, adminSecurity } from "./admin-organizations.js";

export interface AdminCreditGrantRouteOptions {
  provisioning: Provisioning;
  creditGrants: CreditGrants;
  serviceTokens: ServiceTokenService;
  idempotency: IdempotentCreates;
  clock: Clock;
}

const tags = ["Provisioning"];

/** `/v1/admin/organizations/{org}/credit-grants`: top-ups, and what is left of them. */
export async function adminCreditGrantRoutes(
  app: FastifyInstance,
  options: AdminCreditGrantRouteOptions,
): Promise<void> {
  const { provisioning, creditGrants, idempotency, clock } = options;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  registerAdminGuard(app, options.serviceTokens);
  sendNoStore(routes);
  const path = "/v1/admin/organizations/:org/credit-grants";

  routes.post(
    path,
    {
      schema: {
        operationId: "createCreditGrant",
        summary: "Grant credits (a top-up)",
        description:
          "Credits consumed after the billing period's allowance, soonest expiry first, until used or expired. " +
          "Every node consumes them from the next request on, exactly (they live in the database).",
        tags,
        security: adminSecurity,
        params: OrganizationParams,
        headers: IdempotencyKeyHeaders,
        body: CreditGrantBody,
        response: {
          201: CreditGrantRecord,
          ...errorResponses(
            ...ADMIN_REFUSALS,
            "invalid_request",
            "not_found",
            "idempotency_key_reused",
            "idempotency_key_in_use",
            "payload_too_large",
            "unsupported_media_type",
          ),
        },
      },
    },
    async (request, reply) => {
      type Answer = ReturnType<typeof creditGrantJson>;
      const answer = await adminIdempotentCreate(
        idempotency,
        request,
        reply,
        false,
        async (keep?: (response: Answer) => IdempotentResponse) => {
          await provisioning.get(request.params.org);
          const now = clock.now();
          const grant = await creditGrants.grant(
            request.params.org,
            request.body,
            adminActor(request),
            keep && ((made) => keep(creditGrantJson(made, now))),
          );
          return creditGrantJson(grant, now);
        },
      );
      return reply.code(201).send(answer);
    },
  );

  routes.get(
    path,
    {
      schema: {
        operationId: "listCreditGrants",
        summary: "An organization's credit grants, with what is left of each",
        tags,
        security: adminSecurity,
        params: OrganizationParams,
        querystring: PageQuery,
        response: {
          200: CreditGrantList,
          ...errorResponses(...ADMIN_REFUSALS, "invalid_request", "not_found"),
        },
      },
    },
    async (request) => {
      await provisioning.get(request.params.org);
      const page = await creditGrants.list(request.params.org, {
        count: request.query.count ?? 10,
        pageStart: request.query.page_start,
      });
      const now = clock.now();
      return {
        data: page.grants.map((grant) => creditGrantJson(grant, now)),
        pagination: { next_page_start: page.nextPageStart },
      };
    },
  );
  rejectOtherMethods(routes, path, ["GET", "POST"]);
}
